#!/usr/bin/env python3
"""Golden parity fixtures for tabprobe-model (issue 3).

Creates a tiny *random* RobertaForSequenceClassification with Hugging Face `transformers`
(nothing is downloaded from any hub), a byte-level BPE tokenizer trained with the Python
`tokenizers` library on INFOTABS text from the demo dataset, saves them in the Hugging Face
folder layout, and writes the reference token ids, logits and probabilities that the Rust
tests in `crates/model/tests/golden.rs` compare against.

Outputs (next to this script; commit them unchanged):
  tiny-f32/       config.json, model.safetensors (f32), tokenizer.json, vocab.json, merges.txt, ...
  tiny-f16/       config.json, model.safetensors (the same weights rounded to f16)
  tiny-bf16/      config.json, model.safetensors (the same weights rounded to bf16)
  tiny-noprefix/  config.json, model.safetensors (f32, names without the `roberta.` prefix)
  tiny-2way/      config.json, model.safetensors (f32, a two-label ENTAILED/REFUTED head)
  golden.json     pairs, token ids, truncation, logits and probabilities per variant

Reference numbers are computed in float32 with eager attention. The f16 and bf16 references
come from the rounded weights upcast to float32 (what `from_pretrained(..., torch_dtype=float32)`
does), which is also what the Rust loader does, so every variant is compared at f32 precision.

Usage (from the repository root; needs torch, transformers, tokenizers, safetensors from PyPI):
  python3 crates/model/tests/golden/make_golden.py
  python3 crates/model/tests/golden/make_golden.py --hidden 768 --layers 12 --heads 12 \
      --intermediate 3072 --vocab 50265 --max-len 512 --out /tmp/roberta-base-random --no-golden
The second form makes a roberta-base-shaped random model for benchmarks (not committed).
"""

import argparse
import hashlib
import json
import os
import random

import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer, models, pre_tokenizers, decoders, processors, trainers
from transformers import RobertaConfig, RobertaForSequenceClassification, RobertaTokenizerFast

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
SPECIALS = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
SEED = 20261121


def linearize(table, rows=None):
    """INFOTABS-style paragraph: one sentence per row ("The Genre of X are Pop, art rock.")."""
    sentences = []
    for i, row in enumerate(table["rows"]):
        if rows is not None and i not in rows:
            continue
        values = row["values"]
        verb = "are" if len(values) > 1 else "is"
        sentences.append(f"The {row['key']} of {table['title']} {verb} {', '.join(values)}.")
    return " ".join(sentences)


def train_tokenizer(texts, vocab_size):
    """A RoBERTa-style byte-level BPE (specials at ids 0-4, as in roberta-base)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    tok.post_processor = processors.RobertaProcessing(
        ("</s>", tok.token_to_id("</s>")),
        ("<s>", tok.token_to_id("<s>")),
        trim_offsets=True,
        add_prefix_space=False,
    )
    return tok


def randomize(model, generator):
    """Every parameter random, LayerNorm gains and biases included, so a swapped or skipped
    tensor changes the logits (HF's own init leaves LayerNorm at 1/0 and biases at 0)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "LayerNorm.weight" in name:
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=generator))
            elif name.endswith("bias"):
                p.copy_(0.1 * torch.randn(p.shape, generator=generator))
            else:
                # Unit-variance outputs per layer, so every block matters; sharper attention
                # (query/key) and a wider logit spread (out_proj) make position, mask and head
                # mistakes show up far above the test tolerance.
                scale = 3.0 if any(k in name for k in ("query", "key", "out_proj")) else 1.0
                p.copy_(scale * torch.randn(p.shape, generator=generator) / p.shape[-1] ** 0.5)


def save_variant(model, config, out_dir, dtype=None, strip_prefix=False):
    os.makedirs(out_dir, exist_ok=True)
    config.save_pretrained(out_dir)
    state = {k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}
    if dtype is not None:
        state = {k: v.to(dtype) for k, v in state.items()}
    if strip_prefix:
        state = {k.removeprefix("roberta."): v for k, v in state.items()}
    save_file(state, os.path.join(out_dir, "model.safetensors"), metadata={"format": "pt"})


def make_config(args, vocab_size, id2label):
    return RobertaConfig(
        vocab_size=vocab_size,
        hidden_size=args.hidden,
        num_hidden_layers=args.layers,
        num_attention_heads=args.heads,
        intermediate_size=args.intermediate,
        hidden_act="gelu",
        max_position_embeddings=args.max_len + 2,  # RoBERTa positions start after padding_idx=1
        type_vocab_size=1,
        layer_norm_eps=1e-5,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
        attn_implementation="eager",
    )


@torch.no_grad()
def run(model, enc):
    out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"])
    return out.logits.float()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--intermediate", type=int, default=64)
    ap.add_argument("--vocab", type=int, default=1200, help="BPE vocabulary size to train")
    ap.add_argument("--max-len", type=int, default=96, help="model max tokens per pair")
    ap.add_argument("--dataset", default=os.path.join(REPO, "public", "demo", "dataset.json"))
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--no-golden", action="store_true", help="only write one f32 model folder, into --out")
    args = ap.parse_args()

    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    rng = random.Random(SEED)

    with open(args.dataset, encoding="utf-8") as f:
        dataset = json.load(f)
    tables = {t["id"]: t for t in dataset["tables"]}
    texts = [linearize(t) for t in dataset["tables"]] + [e["hypothesis"] for e in dataset["examples"]]

    raw = train_tokenizer(texts, args.vocab)
    tok_dir = args.out if args.no_golden else os.path.join(args.out, "tiny-f32")
    os.makedirs(tok_dir, exist_ok=True)
    hf_tok = RobertaTokenizerFast(tokenizer_object=raw, bos_token="<s>", eos_token="</s>",
                                  sep_token="</s>", cls_token="<s>", unk_token="<unk>",
                                  pad_token="<pad>", mask_token="<mask>",
                                  model_max_length=args.max_len)
    hf_tok.save_pretrained(tok_dir)
    # transformers 5 writes only tokenizer.json; the Rust side also builds from vocab + merges.
    raw.model.save(tok_dir)
    vocab_size = max(args.vocab, len(hf_tok))

    # MNLI order (as roberta-large-mnli): the Rust side must map through id2label.
    id2label = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}
    config = make_config(args, vocab_size, id2label)
    model = RobertaForSequenceClassification(config).eval()
    randomize(model, gen)
    save_variant(model, config, tok_dir)
    if args.no_golden:
        print(f"wrote {tok_dir}")
        return

    # ---- pairs: INFOTABS hypotheses with short premises, full (truncated) tables, non-ASCII,
    # an empty premise (hypothesis-only) and a few hand-written ones.
    examples = [e for e in dataset["examples"] if e["table"] in tables]
    rng.shuffle(examples)
    pairs = []
    for i, e in enumerate(examples[:30]):
        t = tables[e["table"]]
        if i % 3 == 0:
            premise = linearize(t)  # whole table: usually longer than max_len
        else:
            k = rng.randint(1, 3)
            premise = linearize(t, rows=set(range(k)))
        pairs.append({"premise": premise, "hypothesis": e["hypothesis"]})
    pairs.append({"premise": "", "hypothesis": "Breakfast in America is a pop album."})
    pairs.append({"premise": "The City of Zürich is in Switzerland. Beyoncé sang «Halo» — in 2008 at the Théâtre.",
                  "hypothesis": "東京 is not Zürich; naïve café costs 5 €."})
    pairs.append({"premise": "Short.", "hypothesis": "A much longer hypothesis than the premise it follows, with several clauses, numbers like 1979 and 46:06, and punctuation!"})
    pairs.append({"premise": "The Length of Breakfast in America is 46:06.",
                  "hypothesis": "Breakfast in America lasts less than an hour."})

    max_len = args.max_len
    full = hf_tok([p["premise"] for p in pairs], [p["hypothesis"] for p in pairs], truncation=False)
    enc = hf_tok([p["premise"] for p in pairs], [p["hypothesis"] for p in pairs],
                 truncation="only_first", max_length=max_len)
    premise_only = hf_tok([p["premise"] for p in pairs], add_special_tokens=False)
    for i, p in enumerate(pairs):
        ids = enc["input_ids"][i]
        full_len = len(full["input_ids"][i])
        p["input_ids"] = ids
        p["truncated"] = full_len > max_len
        p["premise_tokens_dropped"] = full_len - len(ids)
        p["premise_tokens"] = len(premise_only["input_ids"][i])
        assert len(ids) <= max_len
    n_trunc = sum(p["truncated"] for p in pairs)
    assert n_trunc >= 3, f"only {n_trunc} truncated pairs; lower --max-len"

    # One padded batch with all pairs (mixed lengths) is the reference; single-pair runs must
    # agree with it, which checks that padding and masks do not leak into the <s> position.
    batch = hf_tok.pad({"input_ids": [p["input_ids"] for p in pairs]}, return_tensors="pt")

    variants = {
        "f32": (tok_dir, None, False, model, config),
        "f16": (os.path.join(args.out, "tiny-f16"), torch.float16, False, model, config),
        "bf16": (os.path.join(args.out, "tiny-bf16"), torch.bfloat16, False, model, config),
        "noprefix": (os.path.join(args.out, "tiny-noprefix"), None, True, model, config),
    }
    # A two-way (TabFact-style) head on the same encoder.
    config2 = make_config(args, vocab_size, {0: "REFUTED", 1: "ENTAILED"})
    model2 = RobertaForSequenceClassification(config2).eval()
    model2.roberta.load_state_dict(model.roberta.state_dict())
    with torch.no_grad():
        for p in model2.classifier.parameters():
            p.copy_(0.5 * torch.randn(p.shape, generator=gen))
    variants["2way"] = (os.path.join(args.out, "tiny-2way"), None, False, model2, config2)

    golden = {
        "generator": "crates/model/tests/golden/make_golden.py",
        "torch": torch.__version__,
        "transformers": __import__("transformers").__version__,
        "tokenizers": __import__("tokenizers").__version__,
        "max_length": max_len,
        "pairs": pairs,
        "variants": {},
    }
    for name, (out_dir, dtype, strip, m, cfg) in variants.items():
        if out_dir != tok_dir:
            save_variant(m, cfg, out_dir, dtype=dtype, strip_prefix=strip)
        ref = RobertaForSequenceClassification(cfg).eval()
        state = {k: v.to(dtype).float() if dtype is not None else v for k, v in m.state_dict().items()}
        ref.load_state_dict(state)
        logits = run(ref, batch)
        for i, p in enumerate(pairs):
            single = run(ref, {"input_ids": torch.tensor([p["input_ids"]]),
                               "attention_mask": torch.ones(1, len(p["input_ids"]), dtype=torch.long)})
            assert torch.allclose(single[0], logits[i], atol=1e-5), (name, i)
        probs = torch.softmax(logits, dim=-1)
        golden["variants"][name] = {
            "dir": os.path.basename(out_dir),
            "weights_sha256": hashlib.sha256(
                open(os.path.join(out_dir, "model.safetensors"), "rb").read()).hexdigest(),
            "id2label": {str(k): v for k, v in cfg.id2label.items()},
            "logits": logits.tolist(),
            "probs": probs.tolist(),
        }

    with open(os.path.join(args.out, "golden.json"), "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{len(pairs)} pairs, {n_trunc} truncated, variants: {', '.join(variants)}")


if __name__ == "__main__":
    main()
