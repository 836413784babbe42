"""A second, independent engine for the reference: builds the BERT encoder as
an ONNX graph (standard operators: Gather, MatMul, Softmax, LayerNormalization,
Erf) from model.safetensors, runs it with onnxruntime (float32), and compares
its attention probabilities and last hidden states with bert_reference.py
(numpy float64) and with the committed fixture minilm_forward.json.
A check run by hand, not part of the tests (onnx and onnxruntime are not in
requirements-model.txt: pip install onnx==1.23.2 onnxruntime==1.31.1).

Usage: python onnx_crosscheck.py MODEL_DIR FIXTURE_JSON
"""

import json
import math
import sys

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, checker, helper, numpy_helper
from safetensors.numpy import load_file
from tokenizers import Tokenizer

from bert_reference import forward

LAYERS, HEADS, HIDDEN, EPS = 6, 12, 384, 1e-12


def build_graph(w):
    d = HIDDEN // HEADS
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs, output, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output

    def dense(x, prefix, out):
        y = node("MatMul", [x, const(prefix + ".wT", w[prefix + ".weight"].T.copy())], out + "_mm")
        return node("Add", [y, const(prefix + ".b", w[prefix + ".bias"])], out)

    def norm(x, prefix, out):
        return node(
            "LayerNormalization",
            [x, const(prefix + ".g", w[prefix + ".weight"]), const(prefix + ".beta", w[prefix + ".bias"])],
            out,
            axis=-1,
            epsilon=EPS,
        )

    heads_shape = const("heads_shape", np.array([-1, HEADS, d], dtype=np.int64))
    flat_shape = const("flat_shape", np.array([-1, HIDDEN], dtype=np.int64))
    scale = const("scale", np.array(1.0 / math.sqrt(d), dtype=np.float32))
    half, one, root2 = (const(n, np.array(v, dtype=np.float32)) for n, v in [("half", 0.5), ("one", 1.0), ("root2", math.sqrt(2.0))])

    x = node("Gather", [const("word", w["embeddings.word_embeddings.weight"]), "ids"], "word_x")
    x = node("Add", [x, node("Gather", [const("pos", w["embeddings.position_embeddings.weight"]), "positions"], "pos_x")], "x_wp")
    x = node("Add", [x, const("type0", w["embeddings.token_type_embeddings.weight"][0])], "x_emb")
    x = norm(x, "embeddings.LayerNorm", "x0")
    outputs = []
    for l in range(LAYERS):
        p = f"encoder.layer.{l}."
        q = node("Transpose", [node("Reshape", [dense(x, p + "attention.self.query", f"q{l}"), heads_shape], f"q{l}r")], f"q{l}t", perm=[1, 0, 2])
        k = node("Transpose", [node("Reshape", [dense(x, p + "attention.self.key", f"k{l}"), heads_shape], f"k{l}r")], f"k{l}t", perm=[1, 2, 0])
        v = node("Transpose", [node("Reshape", [dense(x, p + "attention.self.value", f"v{l}"), heads_shape], f"v{l}r")], f"v{l}t", perm=[1, 0, 2])
        scores = node("Mul", [node("MatMul", [q, k], f"s{l}"), scale], f"s{l}scaled")
        probs = node("Softmax", [scores], f"attention{l}", axis=-1)
        outputs.append(probs)
        ctx = node("Transpose", [node("MatMul", [probs, v], f"c{l}")], f"c{l}t", perm=[1, 0, 2])
        ctx = node("Reshape", [ctx, flat_shape], f"c{l}flat")
        x = norm(node("Add", [x, dense(ctx, p + "attention.output.dense", f"o{l}")], f"res{l}a"), p + "attention.output.LayerNorm", f"x{l}a")
        inner = dense(x, p + "intermediate.dense", f"i{l}")
        erf = node("Erf", [node("Div", [inner, root2], f"i{l}div")], f"i{l}erf")
        gelu = node("Mul", [node("Mul", [inner, half], f"i{l}half"), node("Add", [erf, one], f"i{l}erf1")], f"i{l}gelu")
        x = norm(node("Add", [x, dense(gelu, p + "output.dense", f"m{l}")], f"res{l}b"), p + "output.LayerNorm", f"x{l}b")
    outputs.append(node("Identity", [x], "hidden"))
    graph = helper.make_graph(
        nodes,
        "bert",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["n"]) for n in ("ids", "positions")],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, [HEADS, "n", "n"]) for o in outputs[:-1]]
        + [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["n", HIDDEN])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9  # what onnxruntime 1.31 reads
    checker.check_model(model)
    return model


def main():
    model_dir, fixture_path = sys.argv[1], sys.argv[2]
    w = load_file(f"{model_dir}/model.safetensors")
    session = ort.InferenceSession(build_graph(w).SerializeToString(), providers=["CPUExecutionProvider"])
    fixture = json.load(open(fixture_path, encoding="utf-8"))
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.no_padding()
    tok.no_truncation()
    worst = {"numpy attention": 0.0, "numpy hidden": 0.0, "fixture attention": 0.0}
    texts = [c["text"] for c in fixture["cases"]]
    for text in texts:
        ids = np.array(tok.encode(text).ids, dtype=np.int64)
        out = session.run(None, {"ids": ids, "positions": np.arange(len(ids), dtype=np.int64)})
        attention, hidden = np.stack(out[:LAYERS]), out[LAYERS]
        ref_attention, states = forward(w, ids, LAYERS, HEADS)
        worst["numpy attention"] = max(worst["numpy attention"], np.abs(attention - ref_attention).max())
        worst["numpy hidden"] = max(worst["numpy hidden"], np.abs(hidden - states[-1]).max())
        for case in fixture["cases"]:
            if case["text"] == text:
                n, q = len(ids), case["query"]
                rows = np.array(case["f32"]["query_rows"]).reshape(LAYERS, HEADS, n)
                worst["fixture attention"] = max(worst["fixture attention"], np.abs(attention[:, :, q, :] - rows).max())
        if text.startswith("The cat sat"):
            print(f"onnxruntime: layer 5 head 11, 'it' -> 'cat' = {attention[5, 11, 8, 2]:.4f}")
    for what, value in worst.items():
        print(f"onnxruntime vs {what}: max difference {value:.2e}")


if __name__ == "__main__":
    main()
