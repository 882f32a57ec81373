"""``python -m attn_lib.minilm``: fetch all-MiniLM-L6-v2's two files once and verify them by sha256."""

import sys

from .sources import main

sys.exit(main())
