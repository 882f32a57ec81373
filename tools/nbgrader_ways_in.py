"""A course notebook handed in from any way in, graded by nbgrader as the release would be.

A learner who works in the browser edition, on Binder, on a JupyterHub or on their own machine hands in the course's
own notebook (notebooks/NN-*.ipynb, with their answers), which carries none of the release's nbgrader metadata:
nbgrader's autograde would then add the test cells back, fail (``KeyError: 'problem-1-answer'`` in
``OverwriteCells.add_missing_grade_cells``) and remove the submission. :class:`GiveReleaseMetadata`, which the course's
nbgrader_config.py (written by tools/nbgrader_course.py) puts first in ``c.Autograde.sanitize_preprocessors``, gives
such a notebook's cells the metadata of the source notebook's cells they are (the answer cells, the checker cells, the
locked cells), so that nbgrader's own preprocessors then treat it as the release handed in with the same answers:
``OverwriteCells`` puts back the release's source of every locked cell (the test cells, and the setup cell, which in a
course written with ``--student-numbers`` grades on the student's own numbers), and a deleted test cell is added back.

A cell is recognised by what it becomes in the release (tools/nbgrader_release.py): a markdown cell by its text with
the links rewritten (``relink``), a checker cell by the test cell its call becomes (``checker_call``, ``test_source``),
any other code cell by its source, the setup cell by ``setup_cell``. The cells so recognised are aligned with the
source notebook's in order (a learner's inserted cells stay theirs, without metadata, and run as they would in the
release); a problem's answer cell is the code cell after its heading (tools/problems.py's rule), and a locked cell the
learner edited is found in its place between recognised cells. A notebook that already has nbgrader metadata (the
release, a per-student release) keeps it; a per-student release's setup cell, which names its student, is put back
as released when it names the student and assignment being graded, so that an honest submission logs no changed
cell (one naming anyone else is still reported and restored by nbgrader). A notebook in which some problem of the assignment has neither its
answer cell nor its checker cell (another notebook, or one changed past recognition) is refused with a message
naming them, and nbgrader reports it as a failed submission.
"""

from __future__ import annotations

import copy
import difflib
import os
import sys
from pathlib import Path

import nbformat
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import NbGraderPreprocessor

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nbgrader_release as release  # noqa: E402  (tools/nbgrader_release.py: what each cell becomes in the release)
from nbgrader_release import grading, has_release_metadata  # noqa: E402

# nbgrader's checksum of a cell's source, in a release's metadata: OverwriteCells sets it from the gradebook.
CHECKSUM = "checksum"


class HandInError(ValueError):
    """A handed-in notebook that is not the assignment's course notebook, or whose problems cannot be found."""


def as_released(cell, stems: set[str]) -> str:
    """What the release holds for a learner notebook's cell (answer cells aside): the comparable text of a
    handed-in cell."""
    if cell.cell_type == "markdown":
        try:
            return release.relink(cell.source, stems).rstrip()
        except release.CourseError:  # a link the learner added: no course cell has it
            return cell.source.rstrip()
    if cell.cell_type == "code":
        try:
            checker, call, _ = release.checker_call(cell, "")
        except release.CourseError:
            return cell.source.rstrip()
        return release.test_source(checker, call).rstrip()
    return cell.source.rstrip()


def source_text(cell) -> str:
    """A source notebook cell's comparable text: its source, the setup cell without the per-student line that
    ``--student-numbers`` appends."""
    return cell.source.replace(f"\n{release.SOURCE_STUDENT_NUMBERS}", "").rstrip()


def key(cell, text: str) -> str:
    return f"{cell.cell_type}\0{text}"


def pair_cells(handed_in, source, stems: set[str]) -> dict[int, int]:
    """{index of a handed-in cell: index of the source notebook's cell it is}; cells not in it are the learner's
    own (handed in) or missing (source)."""
    theirs = [key(c, as_released(c, stems)) for c in handed_in.cells]
    ours = [key(c, source_text(c)) for c in source.cells]
    pairs: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, ours, theirs, autojunk=False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            pairs[block.b + k] = block.a + k
    taken = set(pairs.values())

    def pair(h: int, s: int) -> None:
        if h not in pairs and s not in taken and handed_in.cells[h].cell_type == source.cells[s].cell_type:
            pairs[h] = s
            taken.add(s)

    # The setup cell, as the release finds it, whatever the learner added to it.
    if release.setup_cell(handed_in) >= 0 and release.setup_cell(source) >= 0:
        pair(release.setup_cell(handed_in), release.setup_cell(source))
    # An answer cell: the code cell after its problem's heading (tools/problems.py's rule).
    at = {s: h for h, s in pairs.items()}
    for s, cell in enumerate(source.cells):
        if grading(cell).get("solution") and s - 1 in at and at[s - 1] + 1 < len(handed_in.cells):
            pair(at[s - 1] + 1, s)
    # A locked cell the learner edited: in its place between recognised cells, one for one.
    for tag, s1, s2, h1, h2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        ours_left = [s for s in range(s1, s2) if s not in taken]
        theirs_left = [h for h in range(h1, h2) if h not in pairs]
        if len(ours_left) == len(theirs_left):
            for h, s in zip(theirs_left, ours_left):
                pair(h, s)
    return pairs


def give_release_metadata(handed_in, source, name: str, stems: set[str] | None = None) -> list[str]:
    """Give each cell of the handed-in course notebook ``handed_in`` the nbgrader metadata of the source notebook's
    cell it is (in place); return the grade ids given.

    Raises
    ------
    HandInError
        When some problem of ``source`` has neither its answer cell nor its checker cell in ``handed_in``.
    """
    stems = stems if stems is not None else set(release.course_notebooks())
    pairs = pair_cells(handed_in, source, stems)
    found = {grading(source.cells[s]).get("grade_id") for s in pairs.values()}
    problems = [grading(c)["grade_id"].removesuffix("-check") for c in source.cells if grading(c).get("grade")]
    missing = [p for p in problems if f"{p}-answer" not in found and f"{p}-check" not in found]
    if missing:
        raise HandInError(
            f"the handed-in {name}.ipynb has no nbgrader metadata and is not the course's {name} notebook: "
            f"{len(missing)} of its {len(problems)} problem(s) ({', '.join(missing)}) have neither their answer cell "
            "nor their checker cell in it (another notebook handed in under this name, or one changed past "
            "recognition); grade it by hand, or ask the learner for the notebook they worked in")
    given = []
    for h, s in sorted(pairs.items()):
        cell, ours = handed_in.cells[h], source.cells[s]
        meta = {k: v for k, v in grading(ours).items() if k != CHECKSUM}
        cell.metadata["nbgrader"] = copy.deepcopy(meta)
        if meta.get("locked") and as_released(cell, stems) == source_text(ours):
            cell.source = ours.source  # what OverwriteCells would put back; it then warns only of a learner's edit
        given.append(meta["grade_id"])
    return given


def own_setup_as_released(nb, student: str, assignment: str) -> bool:
    """A per-student release's setup cell names its student (``use_student_numbers('ada', '02-scores')``); handed in
    by that student, for that assignment, it is put back as the release has it (the student read from the folder),
    so that nbgrader's OverwriteCells sees no change and an honest submission logs nothing. A setup cell naming
    anyone else is left as it is: OverwriteCells warns of the changed locked cell and puts the release's back.
    Returns whether it was put back."""
    own = release.STUDENT_NUMBERS.format(args=f"{student!r}, {assignment!r}")
    for cell in nb.cells:
        if cell.cell_type == "code" and grading(cell).get("locked") and own in cell.source:
            cell.source = cell.source.replace(own, release.SOURCE_STUDENT_NUMBERS)
            return True
    return False


class GiveReleaseMetadata(NbGraderPreprocessor):
    """nbgrader's first sanitizing step for the course: a handed-in notebook without nbgrader metadata (a course
    notebook from the browser edition, Binder, a hub or a laptop) gets the metadata of the release's cells; a
    per-student release handed in by its own student has its setup cell put back as released
    (:func:`own_setup_as_released`); any other notebook passes unchanged."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        if has_release_metadata(nb):
            own_setup_as_released(nb, info["student"], info["assignment"])
            return nb, resources
        name, assignment = info["notebook"], info["assignment"]
        coursedir = CourseDirectory(config=self.config)
        path = os.path.join(coursedir.format_path(coursedir.source_directory, ".", assignment), f"{name}.ipynb")
        source = nbformat.read(path, as_version=4)
        given = give_release_metadata(nb, source, name)
        self.log.info("%s of %s has no nbgrader metadata: a course notebook from another way in; %d of its %d cells "
                      "are the release's (which has %d), the rest are the learner's own", name, info["student"],
                      len(given), len(nb.cells), len(source.cells))
        return nb, resources
