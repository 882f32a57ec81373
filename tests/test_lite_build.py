"""tools/build_lite.py, lite/ and the browser edition's pages (tools/nav.py), without a browser or a network.

The built site itself, in Chromium, is tested by tests/browser/test_lite.py."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import build_lite  # noqa: E402
import nav  # noqa: E402

COURSE = nav.load_course()
ENTRIES = nav.course_entries(ROOT / "notebooks", COURSE)
VERSIONS = build_lite.load_versions()


def test_closure_takes_every_dependency_once_and_reads_underscored_names():
    lock = {"packages": {"a": {"depends": ["b_c"]}, "b-c": {"depends": ["d"]}, "d": {"depends": []},
                         "unused": {"depends": []}}}
    assert build_lite.closure(lock, ["a"]) == ["a", "b-c", "d"]
    with pytest.raises(build_lite.BuildError, match="no package 'zz'"):
        build_lite.closure(lock, ["zz"])


def test_a_wrong_or_missing_file_stops_the_build_saying_what_to_do(tmp_path):
    wheel = tmp_path / "numpy-2.0.2.whl"
    with pytest.raises(build_lite.BuildError, match=r"is missing\. reinstall it"):
        build_lite.check_sha256(wheel, "0" * 64, "Pyodide package numpy", "reinstall it")
    wheel.write_bytes(b"not numpy")
    with pytest.raises(build_lite.BuildError, match=r"numpy-2\.0\.2\.whl has sha256 [0-9a-f]{64}, expected 0{64}"):
        build_lite.check_sha256(wheel, "0" * 64, "Pyodide package numpy", "reinstall it")
    build_lite.check_sha256(wheel, build_lite.sha256(wheel), "Pyodide package numpy", "reinstall it")


def site(tmp_path, settings):
    (tmp_path / "static" / "pyodide").mkdir(parents=True)
    wheel = tmp_path / "static" / "pyodide" / "x-1-py3-none-any.whl"
    wheel.write_bytes(b"x")
    (tmp_path / "static" / "pyodide" / "pyodide-lock.json").write_text(json.dumps(
        {"packages": {"x": {"file_name": wheel.name, "sha256": build_lite.sha256(wheel)}}}))
    config = {"jupyter-config-data": {"litePluginSettings": {build_lite.KERNEL_PLUGIN: settings}}}
    (tmp_path / "jupyter-lite.json").write_text(json.dumps(config))
    return tmp_path


def test_check_site_accepts_a_self_contained_site_and_names_each_outside_dependency(tmp_path):
    good = {"pyodideUrl": "./static/pyodide/pyodide.js", "disablePyPIFallback": True}
    assert build_lite.check_site(site(tmp_path / "good", good)) == []
    cdn = {"pyodideUrl": "https://cdn.jsdelivr.net/pyodide/v0.27.7/full/pyodide.js"}
    problems = build_lite.check_site(site(tmp_path / "cdn", cdn))
    assert any("outside URL" in p for p in problems)
    assert any("PyPI fallback is not off" in p for p in problems)
    assert any("not the site's own Pyodide" in p for p in problems)
    unknown = {**good, "loadPyodideOptions": {"packages": ["x", "pyodide_kernel"]}}
    assert build_lite.check_site(site(tmp_path / "unknown", unknown)) == [
        "the kernel loads pyodide_kernel when it starts, and the site's lock has no such package"]


def test_the_site_config_points_at_its_own_pyodide_with_the_fallback_off():
    config = build_lite.site_config()["jupyter-config-data"]
    settings = config["litePluginSettings"][build_lite.KERNEL_PLUGIN]
    assert settings == {"pyodideUrl": "./static/pyodide/pyodide.js", "disablePyPIFallback": True,
                        "loadPyodideOptions": {"packages": build_lite.KERNEL_START}}
    assert config["exposeAppInBrowser"] is True
    assert "http" not in json.dumps(config)


def test_attn_lib_wheel_holds_the_package_and_is_the_same_bytes_twice(tmp_path):
    import zipfile

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = build_lite.attn_lib_wheel(tmp_path / "a"), build_lite.attn_lib_wheel(tmp_path / "b")
    assert first.read_bytes() == second.read_bytes()
    names = zipfile.ZipFile(first).namelist()
    assert "attn_lib/__init__.py" in names and "attn_lib/_platform.py" in names
    assert "attn_lib/minilm/reference.npz" in names  # package data, as pyproject.toml declares it
    assert not any("__pycache__" in n for n in names)


def test_requirements_pin_what_lite_versions_pins():
    requirements = (ROOT / "requirements-dev.txt").read_text()
    assert f"jupyterlite-core=={VERSIONS['jupyterlite']['core']}" in requirements
    assert "jupyterlite-pyodide-kernel" not in requirements.split("pkginfo")[0]  # fetched by the build, not installed
    carrier = VERSIONS["pyodide"]["wheels"]
    assert f"{carrier['carrier']}=={carrier['carrier-version']}" in requirements


def requirement_ranges(lines) -> dict:
    """name -> specifier of each requirement among ``lines`` (comments, options and ``-e .`` left out)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found = {}
    for line in lines:
        line = line.split("#")[0].strip()
        if line and not line.startswith("-"):
            requirement = Requirement(line)
            found[canonicalize_name(requirement.name)] = requirement.specifier
    return found


def test_the_learners_requirements_allow_the_versions_the_browser_edition_loads():
    """A package the site adds to its lock (lite/versions.toml's extra wheels) at a version inside the range that
    requirements.txt, pyproject.toml's widgets extra and binder/requirements.txt give it: laptop, Binder and
    browser run one line of anywidget, ipywidgets, fsrs."""
    pyproject = build_lite.tomllib.loads((ROOT / "pyproject.toml").read_text())
    sources = {"requirements.txt": (ROOT / "requirements.txt").read_text().splitlines(),
               "widgets extra": pyproject["project"]["optional-dependencies"]["widgets"],
               "binder/requirements.txt": (ROOT / "binder" / "requirements.txt").read_text().splitlines()}
    for source, lines in sources.items():
        ranges = requirement_ranges(lines)
        assert "anywidget" in ranges, source
        for name, spec in VERSIONS["extra-wheels"].items():
            if name in ranges:
                assert ranges[name].contains(spec["version"]), f"{source}: {name}{ranges[name]} vs {spec['version']}"


def test_anywidget_comes_with_its_dependencies_and_its_extension_from_the_wheel_the_kernel_loads(tmp_path):
    """The site's lock holds every package anywidget's wheel requires, at a version it accepts (an extra wheel,
    or one of Pyodide's), each wheel pure Python; the site's front end has anywidget's extension, taken out of that
    very wheel at the version lite/versions.toml pins, and a wrong pin stops the build."""
    import copy
    import email.parser
    import zipfile

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    cache = ROOT / "build" / "lite-cache"  # where the build keeps its downloads (fetched with pip when missing)
    wheels = build_lite.extra_wheels(VERSIONS, cache)  # each checked against its sha256
    spec = VERSIONS["extra-wheels"]["anywidget"]
    with zipfile.ZipFile(wheels["anywidget"]) as wheel:
        metadata = email.parser.Parser().parsestr(
            wheel.read(f"anywidget-{spec['version']}.dist-info/METADATA").decode())
    requires = [Requirement(r) for r in metadata.get_all("Requires-Dist")]
    requires = [r for r in requires if r.marker is None or r.marker.evaluate({"extra": ""})]
    assert sorted(canonicalize_name(r.name) for r in requires) == sorted(spec["depends"])
    official = build_lite.pyodide_core(VERSIONS, cache, tmp_path / "pyodide")
    pyodides = {name: official["packages"][name]["version"]
                for name in build_lite.closure(official, VERSIONS["pyodide"]["wheels"]["needs"])}
    in_lock = {**pyodides, **{name: s["version"] for name, s in VERSIONS["extra-wheels"].items()}}
    for requirement in requires:
        name = canonicalize_name(requirement.name)
        assert name in in_lock and requirement.specifier.contains(in_lock[name]), (requirement, in_lock.get(name))
    for name in ["anywidget", *spec["depends"]]:
        if name in wheels:  # pure Python, as Pyodide can load it (psygnal's index has compiled wheels too)
            with zipfile.ZipFile(wheels[name]) as wheel:
                assert not [n for n in wheel.namelist() if n.endswith((".so", ".pyd"))], name
                assert "Tag: py3-none-any" in wheel.read(f"{wheels[name].name.split('-py3')[0]}.dist-info/WHEEL"
                                                         ).decode(), name
    assert VERSIONS["labextensions"]["anywidget"] == {"wheel": "anywidget", "version": spec["version"]}
    kernel = build_lite.kernel_package(VERSIONS, cache)
    assert wheels["anywidget"] in build_lite.labextension_sources(VERSIONS, wheels, kernel)
    wrong = copy.deepcopy(VERSIONS)
    wrong["labextensions"]["anywidget"]["version"] = "0.10.0"
    with pytest.raises(build_lite.BuildError, match=r"anywidget-0\.11\.0-py3-none-any\.whl ships anywidget 0\.11\.0, "
                                                    r"lite/versions\.toml pins 0\.10\.0"):
        build_lite.labextension_sources(wrong, wheels, kernel)
    assert "anywidget" in build_lite.WARM_IMPORTS  # its bytecode made at build time, as ipywidgets' is


def test_the_course_jupyterlab_gets_no_extension_that_works_only_in_jupyterlite():
    """jupyterlite-pyodide-kernel's front-end extension fails to load in a JupyterLab server ("Shared module
    @jupyterlite/server doesn't exist in shared scope"), an error on every page: the build unpacks that package for
    itself instead of installing it (tools/build_lite.py's kernel_package)."""
    from jupyter_core.paths import jupyter_path

    installed = [path for root in jupyter_path("labextensions")
                 for path in Path(root).glob("@jupyterlite/*/package.json")]
    assert installed == [], [str(path) for path in installed]


def test_the_widget_extensions_come_from_the_kernels_wheels():
    """Front end and kernel match by construction: each widget extension is taken from a pinned extra wheel."""
    for name, spec in VERSIONS["labextensions"].items():
        if "wheel" in spec:
            assert spec["wheel"] in VERSIONS["extra-wheels"], name


def test_every_extra_wheel_is_one_that_attn_lib_loads():
    """The site ships no wheel, and so no widget extension, for nothing: each extra wheel of lite/versions.toml is
    one attn-lib depends on in the site's lock (build_lite.ATTN_LIB_DEPENDS) or a dependency of one."""
    extras = VERSIONS["extra-wheels"]
    reached, todo = set(), list(build_lite.ATTN_LIB_DEPENDS)
    while todo:
        name = todo.pop()
        if name in extras and name not in reached:
            reached.add(name)
            todo.extend(extras[name]["depends"])
    assert sorted(extras) == sorted(reached)


def test_the_contents_page_says_where_each_notebook_runs_and_what_happens_to_edits():
    pages = nav.lite_pages(ENTRIES, COURSE)
    away = [e for e in ENTRIES if not nav.runs_in_browser(COURSE, e)]
    assert [e.name for e in away] == ["10-a-trained-model.ipynb"]
    contents = json.loads(pages[nav.CONTENTS])
    text = "\n".join("".join(c["source"]) for c in contents["cells"])
    for entry in ENTRIES:
        if nav.runs_in_browser(COURSE, entry):
            assert f"]({entry.name})" in text
        else:
            assert f"]({entry.name})" not in text  # not offered as a notebook to run here
            assert nav.binder_url(COURSE, entry.name) in text
    assert COURSE["lite"]["local_install"] in text
    for phrase in ("stay in this browser", "Download a notebook", "Reset a notebook", "Download All My Work",
                   "Reset Notebook to the Course's Version", "When the course changes"):
        assert phrase.lower() in text.lower()
    entry = (ROOT / "lite" / "learner-copies" / "static" / "remoteEntry.js").read_text()  # the commands' own names
    assert "label: 'Download All My Work'" in entry and "label: 'Reset Notebook to the Course\\'s Version…'" in entry
    page = json.loads(pages["10-a-trained-model.ipynb"])
    assert all(c["cell_type"] == "markdown" for c in page["cells"])  # nothing there to fail
    body = "\n".join("".join(c["source"]) for c in page["cells"])
    assert nav.binder_url(COURSE, "10-a-trained-model.ipynb") in body and COURSE["lite"]["local_install"] in body


def test_readme_gives_the_browser_way_in_and_its_two_commands():
    readme = (ROOT / "README.md").read_text()
    assert "## Run in your browser" in readme
    assert f"]({nav.lite_url(COURSE)})" in readme
    commands = readme.split("<!-- lite-commands -->", 1)[1].split("```", 2)[1]
    assert "python tools/build_lite.py" in commands
    assert "python -m http.server -d build/lite" in commands


# The plugin (lite/run-all-past-raises/static/remoteEntry.js), run under Node with a fake page: the container's two
# calls as JupyterLite's bootstrap makes them, then a kernel's replies through the wrapped factory.
PLUGIN_HARNESS = r"""
global.window = {};
require(process.argv[2]);
const container = window._JUPYTERLAB['attn-lite-run-all-past-raises'];
const IKernelSpecs = {token: 'IKernelSpecs'};
container.init({'@jupyterlite/kernel': {'0.6.4': {get: () => Promise.resolve(() => ({IKernelSpecs}))}}});
(async () => {
  const factory = await container.get('./extension');
  const plugin = factory().default[0];
  const specs = {factories: new Map(), register(o) { this.factories.set(o.spec.name, o.create); }};
  plugin.activate({}, specs);
  specs.register({spec: {name: 'python'}, create: async () => ({
    executeRequest: async (content) => ({status: content.code === 'fail' ? 'error' : 'ok', ename: 'E'}),
  })});
  const kernel = await specs.factories.get('python')({});
  const out = {};
  for (const [name, content] of Object.entries({
      tagged: {code: 'fail', stop_on_error: false}, untagged: {code: 'fail', stop_on_error: true},
      fine: {code: 'ok', stop_on_error: false}})) {
    out[name] = await kernel.executeRequest(content);
  }
  out.requires = plugin.requires[0] === IKernelSpecs;
  console.log(JSON.stringify(out));
})();
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed (apt-get install nodejs)")
def test_the_plugin_keeps_run_all_going_only_past_a_deliberate_error(tmp_path):
    script = tmp_path / "harness.js"
    script.write_text(PLUGIN_HARNESS)
    entry = ROOT / "lite" / "run-all-past-raises" / "static" / "remoteEntry.js"
    result = json.loads(subprocess.run(["node", str(script), str(entry)], check=True, capture_output=True,
                                       text=True).stdout)
    assert result["requires"] is True
    # stop_on_error false (JupyterLab sends it for a cell tagged raises-exception): still a failed cell to the
    # front end, with its error, but not "error", which makes JupyterLite cancel the queued cells
    assert result["tagged"] == {"status": "aborted", "ename": "E"}
    assert result["untagged"] == {"status": "error", "ename": "E"}  # an untagged error still stops Run All
    assert result["fine"] == {"status": "ok", "ename": "E"}


def test_the_arrow_shortcuts_are_rebound_off_the_widgets_not_dropped():
    """lite/overrides.json: each command-mode arrow shortcut that fired on a focused slider is disabled and bound
    again with the same keys everywhere but inside a widget (ipywidgets' views, and the explorers drawn by
    attn_lib/widgets/explorer.js, whose range inputs and radio groups take the arrow keys)."""
    shortcuts = json.loads((ROOT / "lite" / "overrides.json").read_text())[
        "@jupyterlab/shortcuts-extension:shortcuts"]["shortcuts"]
    off = [(s["command"], s["keys"]) for s in shortcuts if s.get("disabled")]
    again = [(s["command"], s["keys"]) for s in shortcuts if not s.get("disabled")]
    assert sorted(off) == sorted(again) and len(off) == 4
    assert all(s["selector"].endswith(":not(.jupyter-widgets *):not(.attn-explorer *)")
               for s in shortcuts if not s.get("disabled"))


# ---------------------------------------------------------------------------------------------------------------
# The course version each notebook of the site records, and lite/learner-copies' logic (run under Node)

LOGIC_HARNESS = r"""
global.window = {};
require(process.argv[2]);
const logic = window._JUPYTERLAB['attn-lite-learner-copies'].logic;
const calls = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));
console.log(JSON.stringify(calls.map(([name, args]) => logic[name](...args))));
"""

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed (apt-get install nodejs)")


def in_logic(tmp_path, calls):
    """What lite/learner-copies' ``logic`` returns for each (function name, arguments) of ``calls``, under Node."""
    (tmp_path / "harness.js").write_text(LOGIC_HARNESS)
    (tmp_path / "calls.json").write_text(json.dumps(calls))
    entry = ROOT / "lite" / "learner-copies" / "static" / "remoteEntry.js"
    done = subprocess.run(["node", str(tmp_path / "harness.js"), str(entry), str(tmp_path / "calls.json")],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def notebook(*sources, kinds=None, stamp=None):
    cells = [{"cell_type": (kinds or ["markdown"] * len(sources))[i], "source": s, "metadata": {}}
             for i, s in enumerate(sources)]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    if stamp is not None:
        nb["metadata"]["attn_course"] = {"version": stamp[0], "fingerprint": stamp[1]}
    return nb


@needs_node
def test_the_browser_computes_the_fingerprint_the_build_records_for_every_site_notebook(tmp_path):
    nbs = [json.loads((ROOT / "notebooks" / e.name).read_text(encoding="utf-8")) for e in ENTRIES]
    nbs += [json.loads(text) for text in nav.lite_pages(ENTRIES, COURSE).values()]
    assert in_logic(tmp_path, [["fingerprint", [nb]] for nb in nbs]) == [build_lite.fingerprint(nb) for nb in nbs]


@needs_node
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["markdown", "code", "raw"]),
                          st.lists(st.text(st.characters(exclude_categories=["Cs"])), max_size=3)), max_size=4))
def test_browser_and_build_fingerprints_agree_on_any_text_and_either_source_form(tmp_path, cells):
    """Sources as nbformat writes them (lists of lines) or as JupyterLab saves them (one string): one fingerprint."""
    as_lists = notebook(*[lines for _, lines in cells], kinds=[kind for kind, _ in cells])
    as_strings = notebook(*["".join(lines) for _, lines in cells], kinds=[kind for kind, _ in cells])
    got = in_logic(tmp_path, [["fingerprint", [as_lists]], ["fingerprint", [as_strings]]])
    assert got == [build_lite.fingerprint(as_lists)] * 2


def test_the_fingerprint_follows_the_cells_sources_and_types_not_outputs_or_metadata():
    nb = json.loads((ROOT / "notebooks" / "05-weighted-average.ipynb").read_text(encoding="utf-8"))
    before = build_lite.fingerprint(nb)
    for cell in nb["cells"]:
        cell.get("outputs", []).clear()
        cell["metadata"]["tags"] = ["x"]
    nb["metadata"]["kernelspec"] = {"name": "other"}
    assert build_lite.fingerprint(nb) == before
    markdown = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
    markdown["source"] = "".join(markdown["source"]) + " One word more."
    assert build_lite.fingerprint(nb) != before
    markdown["cell_type"] = "raw"
    assert len({before, build_lite.fingerprint(nb)}) == 2


def test_the_site_stamps_a_notebook_with_the_version_its_fingerprint_and_its_kernel_and_changes_nothing_else():
    text = (ROOT / "notebooks" / "05-weighted-average.ipynb").read_text(encoding="utf-8")
    stamped = json.loads(build_lite.stamped(text, "2026-12-02 abc1234"))
    stamp = stamped["metadata"].pop("attn_course")
    assert stamp == {"version": "2026-12-02 abc1234", "fingerprint": build_lite.fingerprint(json.loads(text))}
    committed = json.loads(text)
    assert committed["metadata"]["kernelspec"]["name"] == "python3"  # CPython's: the Pyodide kernel would rewrite it
    committed["metadata"].update(build_lite.LITE_KERNEL_METADATA)
    assert stamped == committed


def test_a_change_not_committed_stops_the_build_before_any_work_unless_the_working_tree_is_asked_for(monkeypatch,
                                                                                                      tmp_path):
    monkeypatch.setattr(build_lite, "uncommitted", lambda root=ROOT: ["notebooks/02-scores.ipynb"])
    monkeypatch.setattr(build_lite, "load_versions", lambda: pytest.fail("the refused build did some work"))
    with pytest.raises(build_lite.BuildError, match=r"notebooks/02-scores\.ipynb differ from the commit.*--working-tree"):
        build_lite.build(out=tmp_path / "site", stage=tmp_path / "stage")
    assert not (tmp_path / "site").exists()
    with pytest.raises(pytest.fail.Exception, match="did some work"):  # asked for: the build goes on
        build_lite.build(out=tmp_path / "site", stage=tmp_path / "stage", working_tree=True)


def test_uncommitted_names_each_changed_or_new_input_and_nothing_else(tmp_path):
    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q")
    for name in ("notebooks/02-scores.ipynb", "attn_lib/a.py", "docs/guide.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("committed")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    assert build_lite.uncommitted(tmp_path) == []
    (tmp_path / "notebooks" / "02-scores.ipynb").write_text("my saved answers")
    (tmp_path / "attn_lib" / "new.py").write_text("new")
    (tmp_path / "docs" / "guide.md").write_text("not an input of the site")
    assert sorted(build_lite.uncommitted(tmp_path)) == ["attn_lib/new.py", "notebooks/02-scores.ipynb"]
    assert build_lite.course_version(tmp_path).endswith("+changes")
    assert build_lite.uncommitted(tmp_path / "docs" / "not-a-checkout") == []


def test_the_course_version_is_the_commits_date_and_short_id():
    version = build_lite.course_version()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} [0-9a-f]{7,}(\+changes)?", version), version


@needs_node
def test_a_saved_copy_is_asked_about_only_when_the_learner_edited_an_older_version(tmp_path):
    old = notebook("# Old")
    new = notebook("# New")
    old_fp, new_fp = build_lite.fingerprint(old), build_lite.fingerprint(new)
    site = notebook("# New", stamp=("v2", new_fp))
    untouched = notebook("# Old", stamp=("v1", old_fp))
    edited_old = notebook("# Old, and mine", stamp=("v1", old_fp))
    edited_new = notebook("# New, and mine", stamp=("v2", new_fp))
    unstamped = notebook("# Before the stamps, mine")
    cases = {
        "same": [untouched, notebook("# Old", stamp=("v1b", old_fp)), None],  # same content, whatever the stamp
        "current": [edited_new, site, None],  # edits on the site's version
        "untouched": [untouched, site, None],  # an older version, not edited: replaced, not asked
        "older": [edited_old, site, None],
        "kept": [edited_old, site, new_fp],  # kept against this site version
        "not-course": [edited_old, notebook("# New"), None],  # the site's file records no version
    }
    calls = [["verdict", args] for args in cases.values()]
    calls += [["verdict", [edited_old, site, old_fp]], ["verdict", [unstamped, site, None]],
              ["verdict", [edited_old, None, None]]]
    got = in_logic(tmp_path, calls)
    assert got[:len(cases)] == list(cases)
    assert got[len(cases):] == ["older", "older", "not-course"]  # kept against an older site: asked again


@needs_node
def test_download_all_takes_every_file_but_folders_and_untouched_course_notebooks(tmp_path):
    fp = build_lite.fingerprint(notebook("# A"))
    items = {
        "untouched course notebook": {"type": "notebook", "content": notebook("# A", stamp=("v1", fp))},
        "edited course notebook": {"type": "notebook", "content": notebook("# A, mine", stamp=("v1", fp))},
        "learner's new notebook": {"type": "notebook", "content": notebook("# Mine")},
        "a file the kernel wrote": {"type": "file", "format": "text", "content": "x,y\n"},
        "a folder": {"type": "directory", "content": None},
    }
    got = in_logic(tmp_path, [["isWork", [item]] for item in items.values()])
    assert dict(zip(items, got)) == {"untouched course notebook": False, "edited course notebook": True,
                                     "learner's new notebook": True, "a file the kernel wrote": True,
                                     "a folder": False}


@needs_node
def test_a_kept_copys_name_says_what_it_is_and_never_takes_a_name_in_use(tmp_path):
    label = "my copy, 2026-12-01 abc1234"
    got = in_logic(tmp_path, [
        ["copyName", ["05-weighted-average.ipynb", label, []]],
        ["copyName", ["week 2/05-weighted-average.ipynb", label, []]],
        ["copyName", ["05-weighted-average.ipynb", label, ["05-weighted-average (my copy, 2026-12-01 abc1234).ipynb"]]],
        ["copyName", ["a.ipynb", "course version 1/2: x", []]],
    ])
    assert got == ["05-weighted-average (my copy, 2026-12-01 abc1234).ipynb",
                   "week 2/05-weighted-average (my copy, 2026-12-01 abc1234).ipynb",
                   "05-weighted-average (my copy, 2026-12-01 abc1234) 2.ipynb",
                   "a (course version 1-2- x).ipynb"]


def test_fflate_is_vendored_from_npm_only_with_its_recorded_hashes(tmp_path):
    """A tarball whose browser module differs from lite/versions.toml's sha256 stops the build."""
    versions = json.loads(json.dumps(VERSIONS))
    spec = versions["npm"]["fflate"]
    cache = ROOT / "build" / "lite-cache"  # where the build keeps it (fetched with npm pack when missing)
    staged = build_lite.learner_copies_extension(versions, cache, tmp_path / "good")
    assert build_lite.sha256(staged / "static" / "fflate.js") == spec["module-sha256"]
    assert (staged / "static" / "remoteEntry.js").read_bytes() == (
        ROOT / "lite" / "learner-copies" / "static" / "remoteEntry.js").read_bytes()
    spec["module-sha256"] = "0" * 64
    with pytest.raises(build_lite.BuildError, match=r"fflate's esm/browser\.js: fflate\.js has sha256"):
        build_lite.learner_copies_extension(versions, cache, tmp_path / "bad")


def test_the_bytecode_is_made_once_per_set_of_wheels_and_the_cache_keeps_the_last_few(tmp_path, monkeypatch):
    """cached_bytecode_wheels calls bytecode_wheels (Pyodide under Node) only for wheels it has not seen, copies
    the kept wheels into the site otherwise, and keeps BYTECODE_KEPT sets."""
    made = []

    def fake_bytecode_wheels(dest, lock, pyodide):
        made.append(sorted(lock["packages"]))
        path = dest / "a_bytecode-1.0-py3-none-any.whl"
        path.write_bytes(f"bytecode of {sorted(lock['packages'])}".encode())
        return {"a": path}

    monkeypatch.setattr(build_lite, "bytecode_wheels", fake_bytecode_wheels)
    site, cache = tmp_path / "site", tmp_path / "cache"
    site.mkdir()

    def build_with(content):
        (site / "a-1.0-py3-none-any.whl").write_bytes(content)
        lock = {"packages": {"a": {"file_name": "a-1.0-py3-none-any.whl"}}}
        return build_lite.cached_bytecode_wheels(site, lock, cache)

    first = build_with(b"wheel 1")
    assert first == {"a": site / "a_bytecode-1.0-py3-none-any.whl"} and first["a"].is_file() and len(made) == 1
    first["a"].unlink()
    assert build_with(b"wheel 1") == first and first["a"].is_file() and len(made) == 1  # copied from the cache
    for n in range(2, 2 + build_lite.BYTECODE_KEPT):
        build_with(f"wheel {n}".encode())
    assert len(made) == 1 + build_lite.BYTECODE_KEPT  # each new wheel compiled once
    assert len(list((cache / "bytecode").iterdir())) == build_lite.BYTECODE_KEPT
    build_with(b"wheel 1")  # the oldest set was dropped: made again
    assert len(made) == 2 + build_lite.BYTECODE_KEPT
