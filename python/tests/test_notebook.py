"""The example notebook, executed headless as Jupyter would (nbclient): it runs, and its rich
outputs hold the report's summary, top lines and fusion groups."""

import os

import nbclient
import nbformat

from conftest import MODELS, ROOT, cli_json

NOTEBOOK = os.path.join(ROOT, "python", "examples", "kernelcount.ipynb")


def test_the_example_notebook_runs_and_shows_the_report():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o.data["text/html"] for o in outputs if o.output_type == "execute_result" and "text/html" in o.data]
    # The analyze() report, the by_line DataFrame, the count() report.
    assert len(html) == 3
    for report in (html[0], html[2]):
        assert "Summary" in report and "Source lines" in report and "Fusion groups" in report
    assert "torch.export in this process" in html[0]
    assert "dispatch mode" in html[2]
    # The notebook's Block is tests/models' TransformerBlock(d=64, heads=4, mlp_ratio=2) on the
    # same input shape: the CLI's count of that archive.
    kernels = cli_json(os.path.join(MODELS, "transformer_block.pt2"))["totals"]["eager_kernels"]
    assert f"<td class='l'>kernels</td><td class=''>{kernels}</td>" in html[0]
    assert "True True" in "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))" in html[0]
