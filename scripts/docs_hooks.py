"""MkDocs hooks (``mkdocs.yml``): the README is the site's home page, and bench/ comes along.

Every page is written to read right where it sits in the repository, as GitHub shows it:
README.md links ``docs/cli.md``, ``docs/benchmarks.md`` links ``../bench/results.md``. The site
is built from docs/ alone, so these hooks bring README.md in as the home page and bench/'s
reports and plots in as ``bench/``, and point those links at where the files land in the site.
Nothing is copied into docs/: the files in the repository stay the only copies, so a figure
rendered by ``scripts/readme_tables.py`` or a plot drawn by a benchmark is never stale here.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
_BENCH_FILES = (".md", ".png")
"""What the pages show or link from bench/ (its .json files are the scripts' input)."""
_LINK_TO_BENCH = re.compile(r"\]\(((?:\.\./)*)bench/")
_LINK_TO_DOCS = re.compile(r"\]\(docs/")
# A warning fails the strict build (mkdocs counts those of its own loggers).
log = logging.getLogger("mkdocs.hooks.docs_hooks")


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add README.md as ``index.md`` and bench/'s reports and plots under ``bench/``."""
    files.append(File.generated(config, "index.md", abs_src_path=str(REPO / "README.md")))
    for path in sorted(BENCH.iterdir()):
        if path.is_file() and path.suffix in _BENCH_FILES:
            files.append(File.generated(config, f"bench/{path.name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Point the repository's relative links at the site's layout.

    In the repository a page in docs/ sits one folder deeper than bench/ does in the site, so a
    link that climbs to the repository's root to reach bench/ climbs one folder less; the
    README's links into docs/ lose the ``docs/`` prefix.
    """
    if page.file.src_uri == "index.md":
        return _LINK_TO_DOCS.sub("](", markdown)
    if page.file.src_uri.startswith("bench/"):
        return markdown
    depth = page.file.src_uri.count("/")

    def climb_less(m: re.Match[str]) -> str:
        if m.group(1).count("../") != depth + 1:  # in the repository, this is not bench/
            log.warning(f"{page.file.src_uri}: a link to bench/ that is broken on GitHub")
            return m.group(0)
        return "](" + "../" * depth + "bench/"

    return _LINK_TO_BENCH.sub(climb_less, markdown)
