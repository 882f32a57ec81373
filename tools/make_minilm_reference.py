"""Write attn_lib/minilm/reference.npz: all-MiniLM-L6-v2 run by an independent implementation.

The course's numpy forward pass (attn_lib/minilm) is tested against this fixture. It is made once, by PyTorch and
the `transformers` BertModel, in a throwaway environment kept outside the repository (never a course dependency):

    python3 -m venv /tmp/refenv
    /tmp/refenv/bin/pip install torch transformers safetensors tokenizers
    PYTHONPATH=$PWD /tmp/refenv/bin/python tools/make_minilm_reference.py

It reads the same two verified files as the course (attn_lib.minilm.locate: sha256-pinned), tokenizes with
transformers' own tokenizer class, builds BertModel from the model's published configuration, and stores, for a
batch of sentences padded to the longest: the token ids, the attention mask, the sentence embeddings (mean over real
tokens, then length 1, as sentence-transformers does) and a few heads' attention weights. An `about` entry records
how it was made (library versions, file hashes, date).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
from pathlib import Path

import numpy as np

from attn_lib.minilm import sources

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "attn_lib" / "minilm" / "reference.npz"

SENTENCES = [
    "the cat sat on the mat because it was tired",
    "A cat was sitting on a rug.",
    "A man is playing a guitar.",
    "Someone is playing an instrument.",
    "The stock market fell sharply today.",
    "Attention is all you need.",
]
# (sentence, layer, head) whose attention weights are stored, queries on axis 0, keys on axis 1
HEADS_KEPT = [(0, 0, 0), (0, 2, 5), (0, 5, 11), (2, 3, 7)]

# The model's config.json (sentence-transformers/all-MiniLM-L6-v2), the parts BertModel reads.
CONFIG = dict(vocab_size=30522, hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536,
              hidden_act="gelu", max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12,
              pad_token_id=0, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    import safetensors.torch
    import torch
    import transformers

    paths = sources.locate()  # verified by sha256, or an error saying what to run
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(paths[sources.TOKENIZER]),
                                                     pad_token="[PAD]")
    batch = tokenizer(SENTENCES, padding=True, truncation=True, max_length=256, return_tensors="pt")
    config = transformers.BertConfig(**CONFIG)
    config._attn_implementation = "eager"  # the plain softmax(Q K^T / sqrt(d_k)) V, which returns its weights
    model = transformers.BertModel(config, add_pooling_layer=False)
    state = safetensors.torch.load_file(str(paths[sources.WEIGHTS]))
    state.pop("embeddings.position_ids", None)  # a buffer, not a weight
    for name in ("pooler.dense.weight", "pooler.dense.bias"):  # BERT's [CLS] pooler: this model never uses it
        state.pop(name)
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or [k for k in missing if "position_ids" not in k]:
        raise SystemExit(f"weights do not fit BertModel: missing {missing}, unexpected {unexpected}")
    model.eval()
    with torch.no_grad():
        out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                    token_type_ids=torch.zeros_like(batch["input_ids"]), output_attentions=True)
    real = batch["attention_mask"][..., None].to(out.last_hidden_state.dtype)  # (b, n, 1)
    pooled = (out.last_hidden_state * real).sum(1) / real.sum(1)  # (b, d_model)
    embeddings = torch.nn.functional.normalize(pooled, dim=-1).numpy().astype(np.float32)
    kept = np.stack([out.attentions[layer][s, head].numpy() for s, layer, head in HEADS_KEPT]).astype(np.float32)

    about = {
        "made_by": "tools/make_minilm_reference.py",
        "implementation": "transformers.BertModel (eager attention) + mean pooling over real tokens + L2 norm",
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "files_sha256": {name: pinned.sha256 for name, pinned in sources.FILES.items()},
        "sentences": SENTENCES,
        "heads_kept": "rows of attention_weights are (sentence, layer, head) = " + json.dumps(HEADS_KEPT),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        args.out,
        about=np.array(json.dumps(about, indent=1)),
        sentences=np.array(SENTENCES),
        input_ids=batch["input_ids"].numpy().astype(np.int32),
        attention_mask=batch["attention_mask"].numpy().astype(bool),
        embeddings=embeddings,
        heads_kept=np.array(HEADS_KEPT, dtype=np.int32),
        attention_weights=kept,
    )
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)\n{json.dumps(about, indent=1)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
