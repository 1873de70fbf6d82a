#!/usr/bin/env python3
"""How far PyTorch's own dynamic int8 quantization moves each golden fixture from f32: the
independent reference for tabprobe's int8 parity (written like make_f16_reference.py, whose
fixtures, pairs and tokenization it reuses).

For every family fixture in `families/` (all 34 pairs of `families/golden.json`, premise first
and hypothesis first, tokenized as make_golden_families.py does: 68 pairs) and the two RoBERTa
fixtures `tiny-f32` and `tiny-2way` (the 34 pairs of `golden.json`, premise first, as
tokenized there), the model from `transformers` (eager attention, one pair at a time, so a
batch is one row) runs in float32 and then with the transformer body's dense layers in int8.
The body's dense layers are every `torch.nn.Linear` inside the layers make_f16_reference.py's
`layers()` finds (`…encoder.layer.<i>`, DistilBERT's `…transformer.layer.<i>`, BART's
`…encoder.layers.<i>` and `…decoder.layers.<i>`): attention query/key/value/output, BART's
cross-attention, the feed-forward pair and, in the DeBERTa-v2 fixture (no shared attention
key), `pos_key_proj` and `pos_query_proj` — the set tabprobe's `body_dense_mut` gives f16-mixed
and int8. No fixture's layers hold a `Conv1D` or another dense module that is not an
`nn.Linear` (the script asserts that every module it meant to quantize was replaced, and that
no float `nn.Linear` is left in a layer). Outside the layers everything stays float32: the
embeddings (and ELECTRA's `embeddings_project`, DeBERTa-v2's `embed_proj`), the pooler, the
classification head and the logits; inside them the layer norms, softmax and the attention
products (QK^T, AV, DeBERTa's relative-position products), which are not modules.

Three variants, each its own model copy:
  - `per_tensor`: `torch.ao.quantization.quantize_dynamic` with torch's default dynamic qconfig
    (`default_dynamic_qconfig`): weights qint8, per tensor, symmetric
    (scale = max|w| / 127.5, values in [-128, 127], rounded half to even);
  - `per_channel`: the same with `per_channel_dynamic_qconfig`: weights qint8 per output
    channel, symmetric (scale = max|w_channel| / 127.5) — the torch scheme closest to
    tabprobe's;
  - `scheme`: tabprobe's int8 scheme written out in PyTorch, not a torch quantization API:
    weights per output channel, 7 bits: scale = max|w_channel| / 63, values rounded half away
    from zero into [-63, 63]; activations per row (per token), 8 bits: scale = max|x_row| / 127,
    the same rounding, into [-127, 127]; products summed exactly (float64 of the integers, as an i32 sum would), then
    y = acc * s_x * s_w + bias in float32.
In both torch variants the activations are quantized by the quantized engine itself
(`torch.ops.quantized.linear_dynamic`, called by `DynamicQuantizedLinear` with
`reduce_range=True`): per tensor — the whole [1, tokens, features] input of the layer, so per
pair here, not per token — asymmetric quint8 from the tensor's min and max, and on the x86 and
fbgemm engines reduced to 7 bits (0..127) so that fbgemm's 16-bit intermediate sums cannot
overflow; qnnpack ignores reduce_range. The engine (`torch.backends.quantized.engine`, the
machine's default, not chosen here) is recorded as `engine`.

It records, per fixture, how many dense layers were quantized and, per variant, the largest
|Δprobability| and |Δlogit| against float32 and the pairs whose label changes (their indices:
families premise first 0–33, hypothesis first 34–67); for `scheme` also every pair's logits
(`logits`, pair by pair in that order), which tests/int8.rs compares with tabprobe's pair by
pair: summed in another order, a value a hair from a rounding boundary can land on the other
side of it in one of the two, and on a sharpened fixture one such step moves a pair's logits by
1e-2 to 2e-1 while the others agree to 1e-4. How far such steps reach is measured here too:
`scheme.ulp_moved` lists the pairs (index, largest |Δlogit|) that move by more than 1e-3 when
the first embedding module's output moves by one ulp (seeded), nothing else changed. The output is deterministic on one
machine (integer sums; run it twice and compare the bytes); another CPU's kernels may round the
last float bits differently.

Output: `int8_reference.json` next to this script (commit it unchanged).

Usage (from the repository root; torch, transformers, safetensors from PyPI, pins in
scripts/requirements-interop.txt, e.g. `.tools/interop-venv/bin/python`):
  python3 crates/model/tests/golden/make_int8_reference.py
"""
import copy, json, os, sys, warnings
import torch
import transformers as tf
from torch.ao.quantization import default_dynamic_qconfig, per_channel_dynamic_qconfig, quantize_dynamic

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = os.path.join(HERE, "families")
# torch.ao.quantization and quantized tensors are deprecated (in favour of torchao) but still
# shipped in torch 2.15; their warnings say so on every call.
warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", message=".*quantized tensor creation functions.*")


def layers(model):
    """The transformer layers of any fixture's model (make_f16_reference.py's `layers()`)."""
    found = []
    for name, module in model.named_modules():
        parts = name.split(".")
        # `…encoder.layer.<i>`, `…transformer.layer.<i>` (DistilBERT), `…encoder.layers.<i>` and
        # `…decoder.layers.<i>` (BART): the numbered children of a layer list.
        if len(parts) >= 2 and parts[-1].isdigit() and parts[-2] in ("layer", "layers"):
            found.append((name, module))
    assert found, type(model).__name__
    return found


def body_dense(model):
    """Full names of the nn.Linear modules inside the transformer layers."""
    names = []
    for layer_name, layer in layers(model):
        for name, module in layer.named_modules():
            if isinstance(module, torch.nn.Linear):
                names.append(f"{layer_name}.{name}")
            elif type(module).__name__ in ("Conv1D", "Conv1d") or (
                hasattr(module, "weight") and not list(module.children())
                and "LayerNorm" not in type(module).__name__
            ):
                sys.exit(f"{type(model).__name__}: {layer_name}.{name} is a {type(module).__name__}, not an nn.Linear")
    assert names, type(model).__name__
    return names


def torch_dynamic(model, qconfig):
    """quantize_dynamic on exactly the body's dense layers (by name); checks what it replaced."""
    names = body_dense(model)
    quantize_dynamic(model, {n: qconfig for n in names}, dtype=torch.qint8, inplace=True)
    modules = dict(model.named_modules())
    for n in names:
        assert isinstance(modules[n], torch.ao.nn.quantized.dynamic.Linear), (n, type(modules[n]))
    for layer_name, layer in layers(model):
        for n, m in layer.named_modules():
            assert type(m) is not torch.nn.Linear, f"{layer_name}.{n} left in float"
    return len(names)


def round_away(x):
    return torch.sign(x) * torch.floor(x.abs() + 0.5)


def symmetric(x, dim, qmax):
    """Values in [-qmax, qmax] (as float64) and the scale, max|x| / qmax along `dim`."""
    scale = x.abs().amax(dim=dim, keepdim=True) / qmax
    q = torch.where(scale > 0, round_away(x / torch.where(scale > 0, scale, 1.0)), 0.0)
    return q.clamp(-qmax, qmax).double(), scale


class SchemeLinear(torch.nn.Module):
    """tabprobe's int8 dense layer: per-channel weights, per-row activations, exact sums."""

    def __init__(self, linear):
        super().__init__()
        # 7-bit weights: [out, in], [out, 1]
        self.qw, self.sw = symmetric(linear.weight.detach().float(), 1, 63.0)
        self.bias = None if linear.bias is None else linear.bias.detach().float()

    def forward(self, x):
        qx, sx = symmetric(x.float(), -1, 127.0)  # [..., in], [..., 1]
        acc = (qx @ self.qw.T).float()  # exact: |sum| <= 127 · 63 · in < 2^53
        y = acc * sx * self.sw.reshape(-1)
        return y if self.bias is None else y + self.bias


def scheme(model):
    names = body_dense(model)
    modules = dict(model.named_modules())
    for n in names:
        parent, _, child = n.rpartition(".")
        setattr(modules[parent], child, SchemeLinear(modules[n]))
    return len(names)


@torch.no_grad()
def logits(model, encodings):
    out = []
    for e in encodings:
        kw = {"input_ids": torch.tensor([e["input_ids"]])}
        if e.get("token_type_ids") is not None:
            kw["token_type_ids"] = torch.tensor([e["token_type_ids"]])
        out.append(model(**kw).logits[0].float())
    return torch.stack(out)


def compare(a, b, what):
    pa, pb = torch.softmax(a, -1), torch.softmax(b, -1)
    assert (a - b).abs().max().item() > 0, f"{what}: quantization changed nothing"
    return {
        "max_abs_dprob": (pa - pb).abs().max().item(),
        "max_abs_dlogit": (a - b).abs().max().item(),
        "flipped": [i for i in range(len(a)) if int(a[i].argmax()) != int(b[i].argmax())],
    }


def with_logits(deviation, b):
    """The deviation plus each pair's quantized logits, for a pair-by-pair comparison."""
    deviation["logits"] = [[float(v) for v in row] for row in b.tolist()]
    return deviation


@torch.no_grad()
def ulp_moved(model, encodings, before):
    """Which pairs the scheme's logits move by more than 1e-3 when the first embedding module's
    output (BART: the encoder's token embeddings) moves by one ulp, up or down value by value
    (seeded): how far a rounding step moves this fixture's pairs, without any other change."""
    name, module = next(
        (n, m) for n, m in model.named_modules() if n.endswith("embeddings") or n.endswith("embed_tokens")
    )
    gen = torch.Generator().manual_seed(1)

    def hook(_module, _inputs, out):
        away = (torch.randint(0, 2, out.shape, generator=gen) * 2 - 1).float() * 1e30
        return torch.nextafter(out, out + away)

    handle = module.register_forward_hook(hook)
    try:
        after = logits(model, encodings)
    finally:
        handle.remove()
    moved = (before - after).abs().amax(-1)
    return {
        "module": name,
        "pairs": [[i, float(d)] for i, d in enumerate(moved.tolist()) if d > 1e-3],
    }


def gap(folder, encodings):
    full = tf.AutoModelForSequenceClassification.from_pretrained(folder, attn_implementation="eager").eval()
    a = logits(full, encodings)
    out = {"pairs": len(encodings)}
    counts = set()
    for variant, make in (
        ("per_tensor", lambda m: torch_dynamic(m, default_dynamic_qconfig)),
        ("per_channel", lambda m: torch_dynamic(m, per_channel_dynamic_qconfig)),
        ("scheme", scheme),
    ):
        model = copy.deepcopy(full)
        counts.add(make(model))
        b = logits(model, encodings)
        out[variant] = compare(a, b, f"{folder} {variant}")
        if variant == "scheme":
            out[variant] = with_logits(out[variant], b)
            out[variant]["ulp_moved"] = ulp_moved(model, encodings, b)
    assert len(counts) == 1, counts
    out["quantized_dense_layers"] = counts.pop()
    return out


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
    torch.set_num_threads(1)  # one thread: the same sums in the same order on every run
    fam = json.load(open(os.path.join(FAMILIES, "golden.json"), encoding="utf-8"))
    rob = json.load(open(os.path.join(HERE, "golden.json"), encoding="utf-8"))
    engine = torch.backends.quantized.engine
    out = {
        "generator": "crates/model/tests/golden/make_int8_reference.py",
        "torch": torch.__version__,
        "transformers": tf.__version__,
        "engine": engine,
        # The CPU's vector width changes how float sums are ordered, so which values land a
        # hair either side of a rounding boundary (see `scheme.logits` below).
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "activations_7_bit": engine in ("x86", "fbgemm"),
        "method": "every nn.Linear inside the transformer layers in int8, the rest float32; "
        "per_tensor: quantize_dynamic with default_dynamic_qconfig (qint8 weights per tensor, symmetric); "
        "per_channel: quantize_dynamic with per_channel_dynamic_qconfig (qint8 weights per output channel, symmetric); "
        "in both the engine quantizes each layer's whole input per tensor, asymmetric quint8 "
        "(7 bits on x86/fbgemm: reduce_range); "
        "scheme: tabprobe's int8 written out in PyTorch (weights per output channel and activations per row, "
        "symmetric, weights 7-bit (scale max|w|/63, [-63, 63]), activations 8-bit (scale max|x|/127, [-127, 127]), "
        "round half away from zero, exact integer sums, "
        "y = acc * s_x * s_w + bias in float32)",
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
    with open(os.path.join(HERE, "int8_reference.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


main()
