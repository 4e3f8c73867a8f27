"""``chronica.storeconformance`` without pytest: one clear ImportError naming the extra."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_importing_the_contract_without_pytest_names_the_extra() -> None:
    # A finder that hides pytest, as an environment without the testing extra would.
    script = textwrap.dedent(
        """
        import sys

        class NoPytest:
            def find_spec(self, name, path=None, target=None):
                if name == "pytest" or name.startswith(("pytest.", "_pytest")):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, NoPytest())
        try:
            import chronica.storeconformance
        except ImportError as e:
            print(type(e).__name__, e)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == (
        "ImportError chronica.storeconformance is pytest test classes and needs pytest: "
        "pip install 'chronomem[testing]'"
    )
    assert done.stderr == ""
