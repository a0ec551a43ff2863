"""kernelcount.count(): the ATen ops a forward runs, recorded as it runs, analyzed by the core.

The ops are taken at PyTorch's pre-dispatch level, where torch.export records them (aten.linear,
aten.scaled_dot_product_attention, before autograd and the composite decompositions), so that a
model that exports gives the same ops either way. They are written as a torch.export archive's
models/model.json (the serde schema analyzer/pt2_loader.cc reads), with each op's tensors
(sizes, strides, dtype, device), the user's source line (from the Python stack) and its module
path (from module hooks), and handed to the core like any .pt2. Python control flow, graph
breaks and data-dependent shapes are no obstacle: the forward runs as written.
"""

import json
import math
import os
import sys
import tempfile
import traceback
import zipfile

import torch
from torch._export.serde import schema as _schema
from torch._export.serde import serialize as _serde
from torch._subclasses.schema_check_mode import SchemaCheckMode
from torch.utils._python_dispatch import TorchDispatchMode

from ._report import HOW, Error, Report, _load_args

_HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_DTYPE = {k: v.value for k, v in _serde._TORCH_TO_SERIALIZE_DTYPE.items()}
_LAYOUT = {k: v.value for k, v in _serde._TORCH_TO_SERIALIZE_LAYOUT.items()}
_MEMORY_FORMAT = {k: v.value for k, v in _serde._TORCH_TO_SERIALIZE_MEMORY_FORMAT.items()}
_RENAMED = {"torch.ops.aten.lift_fresh.default": "torch.ops.aten.lift_fresh_copy.default"}


class _Recorder(SchemaCheckMode):
    """A dispatch mode on the PreDispatch key, where export's tracer sits. PyTorch lets only its
    own three modes there (proxy, functional, schema check): this one takes the schema check's
    slot and replaces its body with recording."""

    def __init__(self, graph):
        TorchDispatchMode.__init__(self, _dispatch_key=torch._C.DispatchKey.PreDispatch)
        self.graph = graph

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        inputs = self.graph.inputs_of(func, args, kwargs)
        out = func(*args, **kwargs)
        self.graph.add(func, inputs, out)
        return out


def _register_higher_order_ops():
    """Higher-order ops (torch.cond, while_loop, map, scan, invoke_subgraph) ask each mode on the
    PreDispatch key for a handler: the recorder's runs the op's eager implementation with the
    recorder active, so the ops of the branch taken (each iteration run) are recorded."""
    from torch._C import DispatchKey
    from torch._ops import _higher_order_ops

    for hop in list(_higher_order_ops.values()):
        dense = hop.py_kernels.get(DispatchKey.CompositeExplicitAutograd)
        if dense is None or _Recorder in hop.python_key_table:
            continue

        def handler(mode, *args, _dense=dense, **kwargs):
            with mode:
                return _dense(*args, **kwargs)

        hop.py_impl(_Recorder)(handler)


def _float(x):
    # The export schema writes non-finite floats as strings (a -inf mask fill, a NaN).
    if math.isfinite(x):
        return {"as_float": x}
    return {"as_float": "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")}


class _Graph:
    """The recorded ops as the serde schema's graph: tensors named by the object that holds them."""

    def __init__(self):
        self.nodes = []
        self.tensor_values = {}
        self.names = {}  # id(tensor) -> (name, tensor): the tensor is kept so its id is not reused
        self.by_storage = {}  # _storage_key(tensor) -> (name, tensor), for op results
        self.placeholders = []  # (kind, name, target name)
        self.used = set()
        self.counts = {}
        self.params = {}  # id(parameter or buffer) -> ("parameter" | "buffer", qualified name)
        self.module_stack = []  # (path, class) of the modules running now
        self.module_paths = {}  # id(module) -> path below the root
        self.root_outputs = None
        self.root_class = None  # the class name of the first module called

    def fresh(self, base):
        n = self.counts.get(base, 0)
        self.counts[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    def meta(self, t):
        device = t.device
        return {
            "dtype": _DTYPE[t.dtype],
            "sizes": [{"as_int": int(s)} for s in t.shape],
            "requires_grad": bool(t.requires_grad),
            "device": {"type": device.type, "index": device.index},
            "strides": [{"as_int": int(s)} for s in t.stride()],
            "storage_offset": {"as_int": int(t.storage_offset())},
            "layout": _LAYOUT[t.layout],
        }

    def lookup(self, t):
        """The name of a tensor already seen, or None."""
        known = self.names.get(id(t))
        if known is None or known[1] is not t:
            # A factory's result may reach Python as another tensor object over the same storage
            # (autograd's make_variable copies a tensor something else still holds).
            known = self.by_storage.get(_storage_key(t))
        return known[0] if known is not None else None

    def name_of(self, t):
        """The tensor's name; one not made by a recorded op becomes an input of the graph."""
        known = self.lookup(t)
        if known is not None:
            self.used.add(known)
            return known
        kind, qualified = self.params.get(id(t), ("user_input", None))
        if qualified:
            name = self.fresh(("p_" if kind == "parameter" else "b_") + qualified.replace(".", "_"))
        else:
            name = self.fresh("arg")
        self.names[id(t)] = (name, t)
        self.tensor_values[name] = self.meta(t)
        self.placeholders.append((kind, name, qualified))
        self.used.add(name)
        return name

    def arg(self, value, type_):
        if value is None:
            return {"as_none": True}
        if isinstance(value, torch.Tensor):
            return {"as_tensor": {"name": self.name_of(value)}}
        if isinstance(value, bool):
            return {"as_bool": value}
        if isinstance(value, (int, torch.SymInt)):
            return {"as_int": int(value)}
        if isinstance(value, float):
            return _float(value)
        if isinstance(value, str):
            return {"as_string": value}
        if isinstance(value, torch.dtype):
            return {"as_scalar_type": _DTYPE[value]}
        if isinstance(value, torch.layout):
            return {"as_layout": _LAYOUT[value]}
        if isinstance(value, torch.memory_format):
            return {"as_memory_format": _MEMORY_FORMAT[value]}
        if isinstance(value, torch.device):
            return {"as_device": {"type": value.type, "index": value.index}}
        if isinstance(value, (list, tuple)):
            text = str(type_)
            if "Tensor" in text:
                if "?" in text.replace("[]?", "[]"):
                    return {"as_optional_tensors": [
                        {"as_none": True} if v is None else {"as_tensor": {"name": self.name_of(v)}} for v in value]}
                return {"as_tensors": [{"name": self.name_of(v)} for v in value]}
            if all(isinstance(v, bool) for v in value) and value:
                return {"as_bools": list(value)}
            if all(isinstance(v, (int, torch.SymInt)) and not isinstance(v, bool) for v in value):
                return {"as_ints": [int(v) for v in value]}
            return {"as_floats": [float(v) for v in value]}
        if isinstance(value, complex):
            raise TypeError("a complex scalar argument")
        return {"as_string": str(value)}

    def inputs_of(self, func, args, kwargs):
        schema = func._schema
        inputs = []
        for i, a in enumerate(schema.arguments):
            if i < len(args) and not a.kwarg_only:
                value, kind = args[i], 1
            elif a.name in kwargs:
                value, kind = kwargs[a.name], 2
            else:
                continue
            inputs.append({"name": a.name, "arg": self.arg(value, a.type), "kind": kind})
        return inputs

    def output(self, t, base):
        name = self.fresh(base)
        self.names[id(t)] = (name, t)
        key = _storage_key(t)
        if key is not None:
            self.by_storage[key] = (name, t)
        self.tensor_values[name] = self.meta(t)
        return {"name": name}

    def add(self, func, inputs, out):
        schema = func._schema
        base = schema.name.split("::")[-1]
        results = out if isinstance(out, (tuple, list)) and len(schema.returns) != 1 else (out,)
        outputs = []
        for ret, value in zip(schema.returns, results):
            text = str(ret.type)
            if isinstance(value, torch.Tensor):
                outputs.append({"as_tensor": self.output(value, base)})
            elif isinstance(value, (list, tuple)) and "Tensor" in text:
                if "?" in text:
                    outputs.append({"as_optional_tensors": [
                        {"as_none": True} if v is None else {"as_tensor": self.output(v, base)} for v in value]})
                else:
                    outputs.append({"as_tensors": [self.output(v, base) for v in value]})
            else:
                outputs.append({"as_none": True})
        ns, _, rest = str(func).partition(".")
        target = f"torch.ops.{ns}.{rest}" if "." in rest else f"torch.ops.{ns}.{rest}.default"
        # A tensor made from Python data (torch.tensor(...)) reaches the device through a copy
        # that no dispatch mode sees; torch.export records lift_fresh as lift_fresh_copy, whose
        # rule counts that copy, and so is it recorded here.
        target = _RENAMED.get(target, target)
        self.nodes.append({
            "target": target,
            "inputs": inputs,
            "outputs": outputs,
            "metadata": {"stack_trace": _stack_trace(), "nn_module_stack": self.module_text()},
            "is_hop_single_tensor_return": None,
            "name": self.fresh("node_" + base),
        })

    def module_text(self):
        return ";".join(
            f"L__self__{path.replace('.', '_')},{path},{cls}" for path, cls in self.module_stack)

    def model_json(self):
        outputs = []
        if self.root_outputs is not None:
            for t in self.root_outputs:
                known = self.lookup(t)
                if known is not None:
                    outputs.append({"as_tensor": {"name": known}})
        else:
            # No module ran: every tensor no op read is taken as a result.
            made = [o["as_tensor"]["name"] for n in self.nodes for o in n["outputs"] if "as_tensor" in o]
            outputs = [{"as_tensor": {"name": m}} for m in made if m not in self.used]
        inputs, specs = [], []
        for kind, name, qualified in self.placeholders:
            inputs.append({"as_tensor": {"name": name}})
            if kind == "parameter":
                specs.append({"parameter": {"arg": {"name": name}, "parameter_name": qualified}})
            elif kind == "buffer":
                specs.append({"buffer": {"arg": {"name": name}, "buffer_name": qualified, "persistent": True}})
            else:
                specs.append({"user_input": {"arg": {"as_tensor": {"name": name}}}})
        graph = {
            "inputs": inputs, "outputs": outputs, "nodes": self.nodes, "tensor_values": self.tensor_values,
            "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": len(outputs) == 1,
            "custom_obj_values": {}, "sym_float_values": {},
        }
        return {
            "graph_module": {
                "graph": graph,
                "signature": {"input_specs": specs,
                              "output_specs": [{"user_output": {"arg": o}} for o in outputs]},
                "module_call_graph": [], "metadata": {}, "treespec_namedtuple_fields": {},
            },
            "opset_version": {"aten": 10},
            "range_constraints": {},
            "schema_version": {"major": _schema.SCHEMA_VERSION[0], "minor": _schema.SCHEMA_VERSION[1]},
            "verifiers": ["TRAINING"],
            "torch_version": torch.__version__,
            "guards_code": [],
        }

    # ---- module hooks

    def enter(self, module):
        if not self.module_stack:
            self.module_paths = {id(m): n for n, m in module.named_modules(remove_duplicate=False)}
            for n, p in module.named_parameters(remove_duplicate=False):
                self.params.setdefault(id(p), ("parameter", n))
            for n, b in module.named_buffers(remove_duplicate=False):
                self.params.setdefault(id(b), ("buffer", n))
            path = ""
            self.root_class = self.root_class or type(module).__name__
        else:
            path = self.module_paths.get(id(module))
            if path is None:  # a module outside the root's tree: named by its class below its caller
                path = (self.module_stack[-1][0] + "." if self.module_stack[-1][0] else "") + type(module).__name__
        cls = type(module)
        self.module_stack.append((path, f"{cls.__module__}.{cls.__qualname__}"))

    def leave(self, module, output):
        if self.module_stack:
            self.module_stack.pop()
            if not self.module_stack:
                self.root_outputs = [t for t in _tensors(output)]


def _storage_key(t):
    """What makes two tensor objects the same tensor: storage, offset, sizes, strides, dtype."""
    try:
        return (t.untyped_storage()._cdata, t.storage_offset(), tuple(t.shape), tuple(t.stride()), t.dtype)
    except (RuntimeError, NotImplementedError):
        return None  # no storage (sparse, nested): known by the object alone


def _tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)


def _stack_trace():
    """The Python stack at an op, outermost first, as torch.export writes it; kernelcount's own
    frames left out (the core takes the innermost frame outside torch as the op's line)."""
    frames = [f for f in traceback.extract_stack(sys._getframe(2), limit=64) if not f.filename.startswith(_HERE)]
    return "".join(traceback.format_list(frames)).strip()


def write_archive(model_json, path):
    """A .pt2 archive holding models/model.json alone (the core reads no other record)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr("model/archive_format", "pt2")
        z.writestr("model/archive_version", "0")
        z.writestr("model/.data/version", "6\n")
        z.writestr("model/byteorder", sys.byteorder)
        z.writestr("model/models/model.json", json.dumps(model_json))


class Counter:
    """kernelcount.count(): records inside `with`, analyzes on leaving; then behaves as its
    report (kc.eager_kernels, kc.table(), kc._repr_html_())."""

    def __init__(self, target=None, fake=False, name=None, fusion=None):
        self._target = target
        self._fusion = fusion
        self._fake = fake
        self._name = name
        self.report = None

    def __enter__(self):
        from torch._C import _EnablePreDispatch
        from torch._dispatch.python import enable_python_dispatcher

        _register_higher_order_ops()
        self._graph = _Graph()
        self._stack = []
        g = self._graph
        handles = [
            torch.nn.modules.module.register_module_forward_pre_hook(lambda m, a: g.enter(m)),
            torch.nn.modules.module.register_module_forward_hook(lambda m, a, o: g.leave(m, o), always_call=True),
        ]
        self._handles = handles
        contexts = []
        if self._fake:
            from torch._subclasses.fake_tensor import FakeTensorMode

            contexts.append(FakeTensorMode(allow_non_fake_inputs=True))
        contexts += [_EnablePreDispatch(), enable_python_dispatcher(), _Recorder(g)]
        for c in contexts:
            c.__enter__()
            self._stack.append(c)
        return self

    def __exit__(self, *exc):
        while self._stack:
            self._stack.pop().__exit__(*exc)
        for h in self._handles:
            h.remove()
        if exc[0] is not None:
            return False
        g = self._graph
        if not g.nodes:
            raise Error("kernelcount.count(): no ATen op ran inside the with block")
        keep = tempfile.TemporaryDirectory(prefix="kernelcount-")
        path = os.path.join(keep.name, "model.pt2")
        write_archive(g.model_json(), path)
        name = self._name or g.root_class or "forward"
        # The target is a GPU: tensors elsewhere are counted as if they were on it, as the
        # CLI counts an export saved on the CPU. The name says so.
        devices = sorted({m["device"]["type"] for m in g.tensor_values.values()} - {"cuda"})
        where = f"; {', '.join(devices)} tensors counted as on the GPU" if devices else ""
        self.report = Report(path, how="dispatch", display=f"{name} ({HOW['dispatch']}{where})",
                             args=_load_args(self._target, None, fusion=self._fusion), keep=keep)
        self._graph = None
        return False

    def __getattr__(self, name):
        report = self.__dict__.get("report")
        if report is None:
            raise AttributeError(f"{name!r}: the count is not finished (leave the with block first)")
        return getattr(report, name)

    def __repr__(self):
        return repr(self.report) if self.report is not None else "<kernelcount.count(): recording>"

    def _repr_html_(self):
        return self.report._repr_html_() if self.report is not None else None
