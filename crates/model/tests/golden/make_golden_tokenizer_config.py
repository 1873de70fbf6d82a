#!/usr/bin/env python3
"""Golden tokenization for `tokenizer_config.json`'s settings (issue 36, item 3).

`transformers` 5 builds a checkpoint's tokenizer from its class (`tokenizer_class`, else the
model type): `tokenizer.json` gives the vocabulary (and merges), and the class rebuilds the
normalizer, pre-tokenizer and post-processor from `tokenizer_config.json`'s settings
(`do_lower_case`, `strip_accents`, `tokenize_chinese_chars`, `add_prefix_space`, `trim_offsets`,
`split_by_punct`, the special tokens, `extra_special_tokens`) and truncates on
`truncation_side`. For every family fixture of `families/` this writes variants of its
`tokenizer_config.json` — as saved, and with each setting changed where its class reads it — and
the token ids AutoTokenizer gives for the pairs of ../golden.json and two made here (accents,
capitals, tabs and double spaces, a long premise), premise first, `truncation="only_first"` at
`model_max_length` 24. `crates/model/tests/tokenizer_config.rs` loads the same files through
tabprobe. Tokenization only: no torch needed.

Outputs (commit them unchanged): families/tokenizer-config/<family>/<variant>/tokenizer_config.json
and families/tokenizer-config/golden.json.

Usage (from the repository root; pins in scripts/requirements-interop.txt):
  python3 crates/model/tests/golden/make_golden_tokenizer_config.py
"""
import json, os, shutil, tempfile
import transformers as tf

HERE = os.path.dirname(os.path.abspath(__file__))
FAM = os.path.join(HERE, "families")
OUT = os.path.join(FAM, "tokenizer-config")
LENGTH = 24
pairs = [(p["premise"], p["hypothesis"]) for p in json.load(open(os.path.join(HERE, "golden.json"), encoding="utf-8"))["pairs"]]
pairs += [
    ("Élan Vital's 2 TABLE\tΩmega  café, Naïve Über 中文 text", "The CAFÉ is here"),
    ("Vital " * 20 + "ends here", "A short Vital hypothesis"),
]

def new(key, value):
    return lambda c: c.__setitem__(key, value)

# Per class, the settings it reads, each changed from the saved value.
VARIANTS = {
    "BertTokenizer": {
        "uncased-off": new("do_lower_case", False),
        "accents-kept": lambda c: c.update(strip_accents=False),
        "no-chinese-split": new("tokenize_chinese_chars", False),
    },
    "DistilBertTokenizer": {"uncased-off": new("do_lower_case", False)},
    "RobertaTokenizer": {"prefix-space": new("add_prefix_space", True)},
    "DebertaV2Tokenizer": {
        "lowercase": new("do_lower_case", True),
        "no-prefix-space": new("add_prefix_space", False),
        "split-punct": new("split_by_punct", True),
    },
    "XLMRobertaTokenizer": {"no-prefix-space": new("add_prefix_space", False)},
}
# Every class: the pair's special tokens renamed to tokens the vocabulary lacks (added at the
# end, in the order transformers adds them), one named after an existing token, an extra
# special token that splits the text, and truncation from the left.
def renamed(c, cls):
    keys = ("bos_token", "eos_token") if cls == "XLMRobertaTokenizer" else ("cls_token", "sep_token")
    c[keys[0]] = "<first>"
    c[keys[1]] = "<second>"
def existing(c, cls):
    if cls == "XLMRobertaTokenizer":
        c["bos_token"] = c["eos_token"]
    else:
        c["cls_token"] = c["sep_token"]
COMMON = {
    "as-saved": lambda c, cls: None,
    "new-specials": renamed,
    "existing-special": existing,
    "extra-special": lambda c, cls: c.__setitem__("extra_special_tokens", ["Vital"]),
    "truncate-left": lambda c, cls: c.__setitem__("truncation_side", "left"),
}

out = {"generator": "crates/model/tests/golden/make_golden_tokenizer_config.py", "transformers": tf.__version__,
       "model_max_length": LENGTH, "pairs": [{"premise": p, "hypothesis": h} for p, h in pairs], "families": {}}
for name in ["bert", "distilbert", "electra", "bart", "deberta-v3", "xlm-roberta"]:
    src = os.path.join(FAM, name)
    saved = json.load(open(os.path.join(src, "tokenizer_config.json"), encoding="utf-8"))
    cls = saved["tokenizer_class"]
    variants = {k: (lambda f: lambda c: f(c, cls))(f) for k, f in COMMON.items()}
    variants.update(VARIANTS.get(cls, {}))
    fam = {"dir": name, "variants": {}}
    for variant, edit in variants.items():
        cfg = dict(saved)
        cfg["model_max_length"] = LENGTH
        edit(cfg)
        d_out = os.path.join(OUT, name, variant)
        os.makedirs(d_out, exist_ok=True)
        with open(os.path.join(d_out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump(cfg, f, indent=2, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        with tempfile.TemporaryDirectory() as d:
            for f in ["config.json", "tokenizer.json"]:
                shutil.copy(os.path.join(src, f), d)
            shutil.copy(os.path.join(d_out, "tokenizer_config.json"), d)
            tok = tf.AutoTokenizer.from_pretrained(d)
            ids = []
            for p, h in pairs:
                try:
                    ids.append(tok(p, h, truncation="only_first")["input_ids"])
                except Exception:
                    ids.append(None)  # the hypothesis alone is too long
            fam["variants"][variant] = {"class": type(tok).__name__, "input_ids": ids}
    out["families"][name] = fam
with open(os.path.join(OUT, "golden.json"), "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
    f.write("\n")
print("wrote", OUT)
