"""tools/build_notebooks.py runs each notebook's kernel with its own fresh record in a temporary folder: nothing is
written into notebooks/, and no notebook's outputs depend on another's answers."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import build_notebooks  # noqa: E402

SOLVE = ("from attn_lib.exercises import check; from attn_lib.review import record_path; "
         "assert check('02-P2', 64_000_000).passed; print(record_path())")


def test_each_kernel_gets_a_fresh_record_outside_the_repository_and_the_variable_is_restored(monkeypatch):
    monkeypatch.setenv("ATTN_COURSE_RECORD", "/before/record.json")
    seen = []
    for _ in range(2):
        with build_notebooks.fresh_record():
            # a kernel is a child process: it inherits the variable, as this one does
            run = subprocess.run([sys.executable, "-c", SOLVE], capture_output=True, text=True, check=True,
                                 cwd=ROOT / "notebooks", env={**os.environ, "PYTHONPATH": str(ROOT)})
            path = Path(run.stdout.strip())
            assert path.exists() and ROOT not in path.parents
            seen.append(path)
        assert not path.exists()  # the temporary folder is gone
    assert seen[0] != seen[1]
    assert os.environ["ATTN_COURSE_RECORD"] == "/before/record.json"
    assert not (ROOT / "notebooks" / "attn-course-record.json").exists()
