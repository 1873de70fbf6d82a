#!/usr/bin/env python3
"""Golden truncation for `tokenizer_config.json`'s `model_max_length` (issue 36, item 3).

A folder saved by `save_pretrained` carries `tokenizer_config.json`; `transformers` truncates a
pair at its `model_max_length` when asked to truncate with no other length, even where the
network's position table holds more. For BERT, DistilBERT, DeBERTa-v3 and BART, this takes the
family fixture of `families/` (position tables of 96), gives it a `tokenizer_config.json` whose
`model_max_length` is 64, loads that folder back with AutoTokenizer /
AutoModelForSequenceClassification and writes, for every pair of ../golden.json (premise first,
`truncation="only_first"`, no `max_length`), the token ids, truncation and float32 logits
`transformers` gives, or null where it refuses the pair (its hypothesis alone is too long). `crates/model/tests/max_length.rs` loads the same files through tabprobe.

Outputs (commit them unchanged): families/max-length/<family>/tokenizer_config.json and
families/max-length/golden.json.

Usage (from the repository root; pins in scripts/requirements-interop.txt):
  python3 crates/model/tests/golden/make_golden_max_length.py
"""
import json, os, shutil, tempfile
import torch
import transformers as tf

HERE = os.path.dirname(os.path.abspath(__file__))
FAM = os.path.join(HERE, "families")
OUT = os.path.join(FAM, "max-length")
LENGTH = 64
FAMILIES = ["bert", "distilbert", "deberta-v3", "bart"]
pairs = json.load(open(os.path.join(HERE, "golden.json"), encoding="utf-8"))["pairs"]

out = {"model_max_length": LENGTH, "families": {}}
for name in FAMILIES:
    src = os.path.join(FAM, name)
    cfg = json.load(open(os.path.join(src, "tokenizer_config.json"), encoding="utf-8"))
    cfg["model_max_length"] = LENGTH
    os.makedirs(os.path.join(OUT, name), exist_ok=True)
    with open(os.path.join(OUT, name, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")
    with tempfile.TemporaryDirectory() as d:
        for f in ["config.json", "model.safetensors", "tokenizer.json"]:
            shutil.copy(os.path.join(src, f), d)
        shutil.copy(os.path.join(OUT, name, "tokenizer_config.json"), d)
        tok = tf.AutoTokenizer.from_pretrained(d)
        assert tok.model_max_length == LENGTH, tok.model_max_length
        model = tf.AutoModelForSequenceClassification.from_pretrained(d, attn_implementation="eager").eval()
        positions = model.config.max_position_embeddings
        encs, logits = [], []
        for p in pairs:
            full = tok(p["premise"], p["hypothesis"])
            try:
                e = tok(p["premise"], p["hypothesis"], truncation="only_first")
            except Exception as err:
                # The hypothesis alone does not fit: transformers refuses the pair, as tabprobe
                # does ("the hypothesis alone is … tokens").
                encs.append(None); logits.append(None)
                print(name, "refused:", str(err)[:80])
                continue
            kw = {"input_ids": torch.tensor([e["input_ids"]])}
            if "token_type_ids" in e:
                kw["token_type_ids"] = torch.tensor([e["token_type_ids"]])
            with torch.no_grad():
                logits.append(model(**kw).logits[0].float().tolist())
            encs.append({"input_ids": e["input_ids"], "truncated": len(full["input_ids"]) > len(e["input_ids"]),
                         "premise_tokens_dropped": len(full["input_ids"]) - len(e["input_ids"])})
        n = sum(e is not None and e["truncated"] for e in encs)
        between = sum(LENGTH < len(tok(p["premise"], p["hypothesis"])["input_ids"]) <= positions for p in pairs)
        assert between >= 3, (name, "too few pairs between the two limits", between)
        out["families"][name] = {"dir": name, "positions": positions, "encodings": encs, "logits": logits}
        print(name, "positions", positions, "truncated at", LENGTH, ":", n, "of", len(pairs), "pairs;", between, "between", LENGTH, "and", positions)
with open(os.path.join(OUT, "golden.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, indent=1, ensure_ascii=False)
    f.write("\n")
