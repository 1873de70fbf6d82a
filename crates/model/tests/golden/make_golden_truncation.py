#!/usr/bin/env python3
"""Golden truncation on long natural pairs, for every family (issue 43, item 4).

The family fixtures of `families/` (tiny random checkpoints whose `tokenizer_config.json` says
`model_max_length` 96, each with its family's own tokenizer type: WordPiece for BERT,
DistilBERT and ELECTRA, SentencePiece Unigram for XLM-RoBERTa and DeBERTa-v2/v3 through
`XLMRobertaTokenizer` / `DebertaV2Tokenizer`, byte-level BPE for BART) are loaded back with
AutoTokenizer / AutoModelForSequenceClassification and given pairs whose premise is a real
INFOTABS table (`../shared/data/infotabs`, dev split) linearized as tabprobe linearizes it —
`infotabs_compat` (tabprobe's default, byte for byte the INFOTABS script's paragraph, trailing
space included) and `paragraph`, alternately — and whose hypothesis is that table's first dev
hypothesis: 22 whole tables, most far past 96 tokens; 10 the shortest prefix of a table's rows
that passes 96 tokens in the SentencePiece DeBERTa-v3 tokenizer below, so the cut lands a few
tokens from the end; and 4 whole tables (dev, then test_alpha1) that the Hub-style tokenizer
below, read as it is, tokenizes otherwise than transformers.

For each family and pair this writes what `transformers` gives for
`tokenizer(premise, hypothesis, truncation="only_first")` (the premise first; the length is
the tokenizer's `model_max_length`) and, for the first pairs, `tokenizer(hypothesis, premise,
truncation="only_second")`: token ids, type ids, whether the pair was cut and how many tokens,
float32 eager logits one pair at a time, and whether `truncation=True` (`longest_first`, what a
plain `truncation=True` call uses) gives the same ids — it does except where the hypothesis
alone holds more than half of what is left for text, where `longest_first` cuts the
hypothesis too and tabprobe, which never cuts a hypothesis, keeps `only_first`.
`crates/model/tests/truncation.rs` loads the same folders through tabprobe and compares
(ids exactly, logits within 1e-4); it reads the premises from this file, so it needs neither
Python nor the data folder (when the folder is there it also checks that core's linearizers
still write these premises).

Besides the seven family fixtures it makes two more DeBERTa-v3 tokenizers, run with the
deberta-v3 fixture's network: `deberta-v3-spm`, DeBERTa-v3 as its checkpoints ship it, a
`sentencepiece` model (trained here on INFOTABS' training split) that transformers converts;
and `deberta-v3-hub`, the same vocabulary in the tokenizer.json most DeBERTa-v3 checkpoints on
the Hub carry (written by transformers 4: SentencePiece's precompiled nmt_nfkc normalizer),
which transformers 5 replaces with DebertaV2Tokenizer's own pipeline (on 316 of 5,080 INFOTABS
pairs that changes the ids).

Outputs (commit them unchanged): families/truncation/golden.json,
families/truncation/deberta-v3-spm/ and families/truncation/deberta-v3-hub/ (tokenizer.json,
tokenizer_config.json).

Usage (from the repository root; needs ../shared/data; pins, sentencepiece and protobuf
included, in scripts/requirements-interop.txt, installed into a venv such as .tools/interop-venv):
  python3 crates/model/tests/golden/make_golden_truncation.py
"""
import datetime, hashlib, json, os, re
import torch
import transformers as tf

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
FAM = os.path.join(HERE, "families")
OUT = os.path.join(FAM, "truncation")
INFOTABS = os.path.join(REPO, "..", "shared", "data", "infotabs", "data")
FAMILIES = ["bert", "distilbert", "electra", "xlm-roberta", "deberta-v3", "deberta-v2", "bart"]
# DeBERTa-v3 as its checkpoints ship it: a `sentencepiece` model (spm.model) that transformers
# converts for DebertaV2Tokenizer; the network is the deberta-v3 fixture's.
SPM = "deberta-v3-spm"
# The same vocabulary in the tokenizer.json most DeBERTa-v3 checkpoints on the Hub carry: written
# by transformers 4's DebertaV2Converter (normalizer Strip, the spm model's precompiled
# nmt_nfkc map, " {2,}" → " "), beside a tokenizer_config.json of the Hub's usual keys.
# transformers 5 builds DebertaV2Tokenizer's own pipeline over it, and so must tabprobe.
HUB = "deberta-v3-hub"
WHOLE = 22  # pairs of whole tables
PREFIX = 10  # pairs of a row prefix just past the limit
HUB_PAIRS = 4  # pairs the Hub-style DeBERTa-v3 tokenizer.json, read as it is, would get wrong
HYPOTHESIS_FIRST = 8


# ---- tabprobe's linearizations (crates/core/src/linearize/), for key-value tables ----

def find_iso_date(s):
    m = re.search(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", s)
    return m.group(0) if m else None


def valid_iso_date(d):
    try:
        datetime.date(int(d[0:4]), int(d[5:7]), int(d[8:10]))
        return True
    except ValueError:
        return False


def infotabs_compat(title, rows):
    """infotabs_compat.rs: json_to_para.py's paragraph, quirks kept."""
    def date_in(text):
        d = find_iso_date(text)
        if d is None:
            return False
        if valid_iso_date(d):
            return True
        raise ValueError(f"invalid ISO date {d}")  # core refuses the table
    out = []
    for key, values in rows:
        if not values:
            raise ValueError("empty row")
        last = values[-1]
        if len(values) > 1 or key != "":
            s = f"{title} was {key} on " if date_in("".join(values)) else f"The {key} of {title} are "
            for v in values[:-1]:
                s += v + ", "
            if len(values) > 1:
                s += "and "
            s += last + "."
        elif date_in(last):
            s = f"{title} was {key} on {last}."
        else:
            s = f"The {key} of {title} is {last}."
        out.append(s)
    return " ".join(out) + (" " if out else "")


def english_list(items):
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + f", and {items[-1]}"


def paragraph(title, rows):
    """paragraph.rs: the cleaned-up paragraph."""
    title = title.strip()
    out = []
    for key, values in rows:
        vals = [v.strip() for v in values if v.strip()]
        if not vals:
            continue
        lst = english_list(vals)
        if any(find_iso_date(v) for v in vals):
            out.append(f"{title} was {key.strip()} on {lst}.")
        elif len(vals) == 1:
            out.append(f"The {key.strip()} of {title} is {lst}.")
        else:
            out.append(f"The {key.strip()} of {title} are {lst}.")
    return " ".join(out)


LINEARIZE = {"infotabs_compat": infotabs_compat, "paragraph": paragraph}


def table(tid):
    with open(os.path.join(INFOTABS, "tables", "json", f"{tid}.json"), encoding="utf-8") as f:
        d = json.load(f)
    return d["title"][0], [(k, v) for k, v in d.items() if k != "title"]


def build_pairs(deberta_tok, hub_raw):
    def first_hypotheses(split):
        lines = open(os.path.join(INFOTABS, "maindata", f"infotabs_{split}.tsv"), encoding="utf-8").read().split("\n")[1:]
        first = {}
        for line in lines:
            cols = line.rstrip("\r").split("\t")
            if len(cols) == 4 and cols[1] not in first and cols[2].strip():
                first[cols[1]] = cols[2]
        return first
    first = first_hypotheses("dev")
    n = lambda p, h: len(deberta_tok(p, h)["input_ids"])
    whole, prefix = [], []
    for i, (tid, hyp) in enumerate(first.items()):
        if len(whole) >= WHOLE and len(prefix) >= PREFIX:
            break
        lin = "infotabs_compat" if i % 2 == 0 else "paragraph"
        try:
            title, rows = table(tid)
            premise = LINEARIZE[lin](title, rows)
        except (OSError, ValueError):
            continue
        if n(premise, hyp) <= 96:
            continue
        if len(whole) < WHOLE and (i % 3 != 2 or len(prefix) >= PREFIX):
            whole.append({"table": tid, "rows": len(rows), "linearization": lin, "premise": premise, "hypothesis": hyp})
            continue
        if len(prefix) < PREFIX:
            for k in range(1, len(rows) + 1):
                p = LINEARIZE[lin](title, rows[:k])
                if n(p, hyp) > 96:
                    prefix.append({"table": tid, "rows": k, "linearization": lin, "premise": p, "hypothesis": hyp})
                    break
    assert len(whole) == WHOLE and len(prefix) == PREFIX, (len(whole), len(prefix))
    # Whole tables (dev, then test_alpha1) whose ids the Hub's transformers-4 tokenizer.json, read as it is, gets wrong
    # (characters its nmt_nfkc map changes: tabs, zero-width spaces, primes, ...).
    used = {p["table"] for p in whole + prefix}
    hub = []
    for tid, hyp in list(first.items()) + list(first_hypotheses("test_alpha1").items()):
        if len(hub) >= HUB_PAIRS:
            break
        if tid in used:
            continue
        lin = "infotabs_compat" if len(hub) % 2 == 0 else "paragraph"
        try:
            title, rows = table(tid)
            premise = LINEARIZE[lin](title, rows)
        except (OSError, ValueError):
            continue
        if n(premise, hyp) > 96 and hub_raw.encode(premise, hyp).ids != deberta_tok(premise, hyp)["input_ids"]:
            hub.append({"table": tid, "rows": len(rows), "linearization": lin, "premise": premise, "hypothesis": hyp})
    assert len(hub) == HUB_PAIRS, len(hub)
    return whole + prefix + hub


def infotabs_train_text():
    lines = open(os.path.join(INFOTABS, "maindata", "infotabs_train.tsv"), encoding="utf-8").read().split("\n")[1:]
    texts, seen = [], set()
    for line in lines:
        cols = line.rstrip("\r").split("\t")
        if len(cols) != 4:
            continue
        texts.append(cols[2])
        if cols[1] not in seen:
            seen.add(cols[1])
            try:
                texts.append(infotabs_compat(*table(cols[1])))
            except (OSError, ValueError):
                pass
    return texts


def sentencepiece_deberta(out_dir):
    """A 1000-piece Unigram `spm.model` trained by `sentencepiece` on INFOTABS' training split
    (DeBERTa-v3's specials at ids 0-4, digits split as in DeBERTa-v3's own model), loaded by
    AutoTokenizer from spm.model alone and saved: tokenizer.json and tokenizer_config.json as
    `save_pretrained` writes them for a converted DeBERTa-v3 tokenizer."""
    import io, shutil, tempfile
    import sentencepiece as spm
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(infotabs_train_text()), model_writer=model, vocab_size=1000, model_type="unigram",
        pad_id=0, bos_id=1, eos_id=2, unk_id=3, pad_piece="[PAD]", bos_piece="[CLS]", eos_piece="[SEP]",
        unk_piece="[UNK]", user_defined_symbols=["[MASK]"], split_digits=True, byte_fallback=False,
        num_threads=1, minloglevel=2)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "spm.model"), "wb") as f:
            f.write(model.getvalue())
        with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
            json.dump({"model_max_length": 96, "tokenizer_class": "DebertaV2Tokenizer"}, f)
        tok = tf.AutoTokenizer.from_pretrained(d)
        assert len(tok) == 1000, len(tok)
        with tempfile.TemporaryDirectory() as saved:
            tok.save_pretrained(saved)
            os.makedirs(out_dir, exist_ok=True)
            for name in ["tokenizer.json", "tokenizer_config.json"]:
                shutil.copy(os.path.join(saved, name), out_dir)
            cfg = json.load(open(os.path.join(out_dir, "tokenizer_config.json")))
            # Where the temporary folder was: not part of the tokenizer.
            for key in ["is_local", "local_files_only"]:
                cfg.pop(key, None)
            with open(os.path.join(out_dir, "tokenizer_config.json"), "w") as f:
                json.dump(cfg, f, indent=2, sort_keys=True)
                f.write("\n")
    return model.getvalue()


def transformers4_deberta(spm_model, spm_dir, out_dir):
    """`spm_dir`'s tokenizer with the normalizer transformers 4's DebertaV2Converter wrote
    (the same converter is in transformers 5's convert_slow_tokenizer.py), and a Hub-style
    tokenizer_config.json."""
    import base64
    from sentencepiece import sentencepiece_model_pb2
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(spm_model)
    tokenizer = json.load(open(os.path.join(spm_dir, "tokenizer.json"), encoding="utf-8"))
    tokenizer["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Strip", "strip_left": True, "strip_right": True},
        {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(proto.normalizer_spec.precompiled_charsmap).decode()},
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
    ]}
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    cfg = {"bos_token": "[CLS]", "cls_token": "[CLS]", "do_lower_case": False, "eos_token": "[SEP]",
           "mask_token": "[MASK]", "model_max_length": 96, "pad_token": "[PAD]", "sep_token": "[SEP]",
           "sp_model_kwargs": {}, "split_by_punct": False, "tokenizer_class": "DebertaV2Tokenizer",
           "unk_token": "[UNK]", "vocab_type": "spm"}
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
        f.write("\n")


def main():
    torch.manual_seed(0)
    spm_dir = os.path.join(OUT, SPM)
    spm_model = sentencepiece_deberta(spm_dir)
    hub_dir = os.path.join(OUT, HUB)
    transformers4_deberta(spm_model, spm_dir, hub_dir)
    tokenizers = {name: tf.AutoTokenizer.from_pretrained(os.path.join(FAM, name)) for name in FAMILIES}
    tokenizers[SPM] = tf.AutoTokenizer.from_pretrained(spm_dir)
    tokenizers[HUB] = tf.AutoTokenizer.from_pretrained(hub_dir)
    from tokenizers import Tokenizer
    pairs = build_pairs(tokenizers[SPM], Tokenizer.from_file(os.path.join(hub_dir, "tokenizer.json")))
    out = {"generator": "crates/model/tests/golden/make_golden_truncation.py", "torch": torch.__version__,
           "transformers": tf.__version__, "pairs": pairs, "hypothesis_first": list(range(HYPOTHESIS_FIRST)), "families": {}}
    own = {SPM: spm_dir, HUB: hub_dir}
    for name in FAMILIES + [SPM, HUB]:
        d = os.path.join(FAM, "deberta-v3" if name in own else name)
        tok = tokenizers[name]
        limit = tok.model_max_length
        assert limit == 96, (name, limit)
        model = tf.AutoModelForSequenceClassification.from_pretrained(d, attn_implementation="eager").eval()

        def enc(a, b, strategy):
            full = tok(a, b)["input_ids"]
            e = tok(a, b, truncation=strategy)
            assert len(e["input_ids"]) <= limit, (name, len(e["input_ids"]))
            same = tok(a, b, truncation=True)["input_ids"] == e["input_ids"]
            return {"input_ids": e["input_ids"], "token_type_ids": e.get("token_type_ids"),
                    "truncated": len(full) > limit, "premise_tokens_dropped": len(full) - len(e["input_ids"]),
                    "full_length": len(full), "longest_first_same": same}

        @torch.no_grad()
        def logits(e):
            kw = {"input_ids": torch.tensor([e["input_ids"]])}
            if e["token_type_ids"] is not None:
                kw["token_type_ids"] = torch.tensor([e["token_type_ids"]])
            return model(**kw).logits[0].float().tolist()

        pf = [enc(p["premise"], p["hypothesis"], "only_first") for p in pairs]
        hf = [enc(pairs[i]["hypothesis"], pairs[i]["premise"], "only_second") for i in out["hypothesis_first"]]
        out["families"][name] = {
            "dir": os.path.basename(d), "tokenizer_dir": os.path.relpath(own.get(name, d), FAM),
            "tokenizer_class": type(tok).__name__, "tokenizer_model": type(tok.backend_tokenizer.model).__name__,
            "max_length": limit,
            "weights_sha256": hashlib.sha256(open(os.path.join(d, "model.safetensors"), "rb").read()).hexdigest(),
            "premise_first": pf, "logits": [logits(e) for e in pf],
            "hypothesis_first": hf, "hypothesis_first_logits": [logits(e) for e in hf],
        }
        cut = sum(e["truncated"] for e in pf)
        print(name, type(tok).__name__, type(tok.backend_tokenizer.model).__name__, "truncated", cut, "of", len(pf),
              "longest_first differs on", sum(not e["longest_first_same"] for e in pf + hf))
    os.makedirs(OUT, exist_ok=True)
    # One encoding per line keeps the file small and its diffs readable.
    text = json.dumps(out, indent=1, ensure_ascii=False)
    text = re.sub(r"\[\s+([-0-9.e,\s]+?)\s+\]", lambda m: "[" + re.sub(r"\s+", " ", m.group(1)) + "]", text)
    with open(os.path.join(OUT, "golden.json"), "w", encoding="utf-8") as f:
        f.write(text + "\n")


main()
