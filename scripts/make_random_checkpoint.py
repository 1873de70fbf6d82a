#!/usr/bin/env python3
"""A roberta-base-shaped checkpoint with random weights, for `tabprobe bench` only, without torch.

The tensor names and layout are those of the tiny golden checkpoint
(crates/model/tests/golden/tiny-f32), scaled to roberta-base (hidden 768, 12 layers, 12 heads,
intermediate 3072, vocabulary 50265, 514 positions); its tokenizer is copied as is (weight
values and the tokenizer's real vocabulary do not change speed). Needs numpy and safetensors
from PyPI (scripts/requirements-interop.txt pins both).

    python3 scripts/make_random_checkpoint.py /tmp/roberta-base-random
"""
import json
import os
import shutil
import sys

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

TINY = os.path.join(os.path.dirname(__file__), "..", "crates", "model", "tests", "golden", "tiny-f32")
BASE = dict(hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            intermediate_size=3072, vocab_size=50265, max_position_embeddings=514)


def main(out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(TINY, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    # Each tiny dimension maps to its roberta-base size (they are distinct numbers in tiny-f32).
    dims = {config[k]: v for k, v in BASE.items() if k not in ("num_hidden_layers", "num_attention_heads")}
    if len(dims) != 4:
        sys.exit(f"{TINY}/config.json: tiny dimensions are not distinct, cannot scale them")
    rng = np.random.default_rng(0)
    tensors = {}
    with safe_open(os.path.join(TINY, "model.safetensors"), "np") as f:
        for name in f.keys():
            if ".layer." in name and not name.split(".layer.")[1].startswith("0."):
                continue  # layer 0 stands for every layer
            shape = tuple(dims.get(d, d) for d in f.get_slice(name).get_shape())
            names = [name.replace(".layer.0.", f".layer.{l}.") for l in range(12)] if ".layer.0." in name else [name]
            for n in names:
                tensors[n] = (rng.standard_normal(shape) * 0.02).astype(np.float32)
    save_file(tensors, os.path.join(out, "model.safetensors"))
    config.update(BASE)
    with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
    for name in ("tokenizer.json", "vocab.json", "merges.txt"):
        shutil.copy(os.path.join(TINY, name), out)
    # The tiny tokenizer's model_max_length (96) would cap every sequence of this model at 96
    # tokens in tabprobe (as in transformers); roberta-base's is 512.
    with open(os.path.join(TINY, "tokenizer_config.json"), encoding="utf-8") as f:
        tokenizer_config = json.load(f)
    tokenizer_config["model_max_length"] = BASE["max_position_embeddings"] - 2
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_config, f, indent=2)
    print(f"{out}: {sum(t.size for t in tensors.values()):,} parameters in {len(tensors)} tensors")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_random_checkpoint.py OUT_DIR")
    main(sys.argv[1])
