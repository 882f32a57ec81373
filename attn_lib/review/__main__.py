"""``python -m attn_lib.review --anki FILE``: write every review prompt of the course as an Anki deck."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attn_lib.review", description=__doc__.split(": ")[1])
    parser.add_argument("--anki", metavar="FILE", required=True, help="the Anki package to write (.apkg)")
    args = parser.parse_args(argv)
    from ._anki import write_deck
    from ._prompts import PROMPTS

    try:
        path = write_deck(args.anki)
    except ValueError as error:
        parser.error(str(error))
    print(f"wrote {len(PROMPTS)} prompts to {path}: in Anki, File > Import (importing it again updates the notes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
