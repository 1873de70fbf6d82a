#!/usr/bin/env python3
"""How far PyTorch's own f16 autocast moves each golden fixture from f32: the independent
reference for tabprobe's f16-mixed parity (crates/model/tests/precision.rs, issue 33 item 3).

For every family fixture in `families/` (all 34 pairs of `families/golden.json`, premise first
and hypothesis first, tokenized as make_golden_families.py does: 68 pairs) and the two RoBERTa
fixtures `tiny-f32` and `tiny-2way` (the 34 pairs of `golden.json`, premise first, as
tokenized there), the model from `transformers` (eager attention, one pair at a time) runs
  - in float32, and
  - with every transformer layer (encoder layers; BART's encoder and decoder layers) under
    `torch.autocast("cpu", dtype=torch.float16)`, the embeddings, pooler, classification head
    and logits outside it in float32 — the split tabprobe's f16-mixed makes: autocast runs the
    layers' linear layers and attention products on f16-rounded inputs and writes f16; residual
    sums promote back to f32, so the layer norms run in f32.
It records, per fixture, the largest |Δprobability| and |Δlogit| between the two and the pairs
whose label changes. CPU autocast differs from CUDA's in one respect that matters here: it
leaves softmax to its input's dtype, so attention softmax runs on f16 scores (tabprobe and
CUDA autocast run it in f32); and DeBERTa's relative-position products run in f16 (tabprobe
keeps them f32).

Output: `f16_reference.json` next to this script (commit it unchanged).

Usage (from the repository root; torch, transformers, safetensors from PyPI, pins in
scripts/requirements-interop.txt):
  python3 crates/model/tests/golden/make_f16_reference.py
"""
import json, os, sys
import torch
import transformers as tf

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = os.path.join(HERE, "families")


def layers(model):
    """The transformer layers of any fixture's model: what f16-mixed rounds."""
    found = []
    for name, module in model.named_modules():
        parts = name.split(".")
        # `…encoder.layer.<i>`, `…transformer.layer.<i>` (DistilBERT), `…encoder.layers.<i>` and
        # `…decoder.layers.<i>` (BART): the numbered children of a layer list.
        if len(parts) >= 2 and parts[-1].isdigit() and parts[-2] in ("layer", "layers"):
            found.append(module)
    assert found, type(model).__name__
    return found


def autocast_layers(model):
    """Runs each layer's forward under f16 autocast (the rest of the model stays f32)."""
    for layer in layers(model):
        forward = layer.forward

        def wrapped(*args, __forward=forward, **kwargs):
            with torch.autocast("cpu", dtype=torch.float16):
                out = __forward(*args, **kwargs)
            # Back to f32 between layers, as tabprobe widens every f16 result.
            if isinstance(out, tuple):
                return tuple(o.float() if torch.is_tensor(o) and o.is_floating_point() else o for o in out)
            return out.float() if torch.is_tensor(out) and out.is_floating_point() else out

        layer.forward = wrapped


@torch.no_grad()
def logits(model, encodings):
    out = []
    for e in encodings:
        kw = {"input_ids": torch.tensor([e["input_ids"]])}
        if e.get("token_type_ids") is not None:
            kw["token_type_ids"] = torch.tensor([e["token_type_ids"]])
        out.append(model(**kw).logits[0].float())
    return torch.stack(out)


def gap(folder, encodings):
    full = tf.AutoModelForSequenceClassification.from_pretrained(folder, attn_implementation="eager").eval()
    half = tf.AutoModelForSequenceClassification.from_pretrained(folder, attn_implementation="eager").eval()
    autocast_layers(half)
    a, b = logits(full, encodings), logits(half, encodings)
    pa, pb = torch.softmax(a, -1), torch.softmax(b, -1)
    flipped = [i for i in range(len(encodings)) if int(a[i].argmax()) != int(b[i].argmax())]
    assert (a - b).abs().max().item() > 0, f"{folder}: autocast changed nothing"
    return {
        "pairs": len(encodings),
        "max_abs_dprob": (pa - pb).abs().max().item(),
        "max_abs_dlogit": (a - b).abs().max().item(),
        "flipped": flipped,
    }


def family_encodings(folder, pairs, max_length):
    tok = tf.AutoTokenizer.from_pretrained(folder)

    def enc(a, b, trunc):
        kw = dict(truncation=trunc, max_length=max_length) if trunc else {}
        e = tok(a, b, **kw) if b is not None else tok(a, **kw)
        return {"input_ids": e["input_ids"], "token_type_ids": e.get("token_type_ids")}

    first = [enc(p["premise"], p["hypothesis"], "only_first") for p in pairs]
    second = [enc(p["hypothesis"], p["premise"] or None, "only_second" if p["premise"] else False) for p in pairs]
    return first + second


def main():
    fam = json.load(open(os.path.join(FAMILIES, "golden.json"), encoding="utf-8"))
    rob = json.load(open(os.path.join(HERE, "golden.json"), encoding="utf-8"))
    out = {
        "generator": "crates/model/tests/golden/make_f16_reference.py",
        "torch": torch.__version__,
        "transformers": tf.__version__,
        "method": "transformer layers under torch.autocast('cpu', dtype=torch.float16); embeddings, pooler, head and logits in float32",
        "fixtures": {},
    }
    for name, f in sorted(fam["families"].items()):
        folder = os.path.join(FAMILIES, f["dir"])
        out["fixtures"][name] = gap(folder, family_encodings(folder, fam["pairs"], f["max_length"]))
        print(name, out["fixtures"][name], file=sys.stderr)
    encodings = [{"input_ids": p["input_ids"]} for p in rob["pairs"]]
    for name in ("tiny-f32", "tiny-2way"):
        out["fixtures"][name] = gap(os.path.join(HERE, name), encodings)
        print(name, out["fixtures"][name], file=sys.stderr)
    with open(os.path.join(HERE, "f16_reference.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


main()
