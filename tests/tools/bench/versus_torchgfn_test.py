"""tools/versus-torchgfn.py's preparation of a torchgfn tree, on a small tree of the same shape.

The stand-ins must let torchgfn's imports succeed and refuse every use (a scenario that needed
tensordict, torch_geometric or linear_attention_transformer would fail, not run something
else); einops' rearrange must equal the reshape it replaces; the copy must give gfn/__init__.py's
version lookup a fallback and leave the source tree unchanged; a tree without src/gfn is refused.
torchgfn's process must get one thread and the OpenBLAS kernels our runtime would choose (a
user-set OPENBLAS_CORETYPE wins): python3-torch loaded under that environment reports them.
Run with Debian's python3 (python3-torch): /usr/bin/python3 versus_torchgfn_test.py <script>
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
from pathlib import Path

SCRIPT = Path(sys.argv.pop(1))
spec = importlib.util.spec_from_file_location("versus_torchgfn", SCRIPT)
versus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(versus)

INIT = 'import importlib.metadata as met\n\n__version__ = met.version("torchgfn")\n'
PROBE = """
import torch, gfn
from tensordict import TensorDict
from torch_geometric.data import Data
from linear_attention_transformer import LinearAttentionTransformer
from einops import rearrange
x = torch.arange(24.).view(2, 3, 4)
assert torch.equal(rearrange(x, "... a b -> ... (a b)"), x.flatten(-2))
refused = 0
for cls in (TensorDict, Data, LinearAttentionTransformer):
    try:
        cls({})
    except RuntimeError:
        refused += 1
print("version", gfn.__version__, "refused", refused)
"""


class PrepareTorchgfn(unittest.TestCase):
    def make_tree(self, root: Path) -> Path:
        (root / "src" / "gfn").mkdir(parents=True)
        (root / "src" / "gfn" / "__init__.py").write_text(INIT)
        (root / "benchmark" / "lib_runners").mkdir(parents=True)
        for name in versus.RUNNER_FILES:
            (root / "benchmark" / name).write_text(f"# {name}\n")
        return root

    def test_copy_runs_with_standins_and_leaves_the_source(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            source = self.make_tree(tmp / "source")
            root = versus.prepare_torchgfn(source, tmp / "work" / "torchgfn")
            standins = versus.write_standins(tmp / "work" / "standins")
            self.assertEqual((source / "src" / "gfn" / "__init__.py").read_text(), INIT)
            for name in versus.RUNNER_FILES:
                self.assertTrue((root / "benchmark" / name).is_file(), name)
            self.assertEqual((root / "benchmark" / "lib_runners" / "__init__.py").read_text(), "")
            out = subprocess.run(["/usr/bin/python3", "-c", PROBE], check=True, text=True,
                                 capture_output=True,
                                 env=versus.one_thread_env(f"{root}:{standins}")).stdout
            self.assertEqual(out.split(), ["version", "source", "refused", "3"])

    def test_a_tree_without_gfn_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaisesRegex(ValueError, "not a torchgfn source tree"):
                versus.prepare_torchgfn(Path(tmp), Path(tmp) / "work")


class OneThreadEnvironment(unittest.TestCase):
    def test_torch_loads_the_kernels_our_runtime_chooses(self):
        env = versus.one_thread_env()
        self.assertEqual(env["OPENBLAS_NUM_THREADS"], "1")
        self.assertEqual(env["OMP_NUM_THREADS"], "1")
        chosen = versus.openblas_coretype()
        flags = Path("/proc/cpuinfo").read_text()
        if os.environ.get("OPENBLAS_CORETYPE") is None and " avx2 " in flags:
            self.assertIn(chosen, ("SkylakeX", "Haswell"))
        if not chosen:
            return
        self.assertEqual(env["OPENBLAS_CORETYPE"], chosen)
        out = subprocess.run([sys.executable, "-c", "import torch"],
                             env=dict(env, OPENBLAS_VERBOSE="2"), capture_output=True, text=True)
        self.assertIn(f"Core: {chosen}", out.stdout + out.stderr)

    def test_a_user_set_coretype_wins(self):
        with unittest.mock.patch.dict(os.environ, {"OPENBLAS_CORETYPE": "Haswell"}):
            self.assertEqual(versus.one_thread_env()["OPENBLAS_CORETYPE"], "Haswell")


if __name__ == "__main__":
    unittest.main()
