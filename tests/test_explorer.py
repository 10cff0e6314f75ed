"""The explorer (render/explorer.py): the report's graphs searched, read node by node and
replayed, as a person uses them in Chromium (Playwright; every network request refused),
and its data checked without a browser."""
import json
import re
import shutil
import textwrap
import time

import pytest

from _cli_helpers import SEED, invoke, write

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (.ci/run installs it)")


def report(tmp_path, script, *args, name="report.html"):
    out = tmp_path / name
    r = invoke("run", script, "--html", out, *args)
    assert r.exit_code in (0, 1), r.stderr
    return out


def explorer_data(page_text, k=-1):
    """The data of the page's k-th explorer, its texts looked up in its string table (as the
    page's script does): nodes as [name, outputs, module, site, code, drawn, leaf, saved,
    next, formulas]; a small gradient as [shape, dtype, values]."""
    blocks = re.findall(r'<script type="application/json" class="gv-data" id="gv-data-\d+">(.*?)</script>',
                        page_text, re.S)
    d = json.loads(blocks[k])
    S = d["strings"]

    def s(k):
        return None if k is None else S[k]
    d["nodes"] = [[s(n[0]), [s(o) for o in n[1]], s(n[2]), s(n[3]), s(n[4]), s(n[5]),
                   None if n[6] is None else [s(n[6][0]), n[6][1], s(n[6][2]), n[6][3]],
                   [[s(x[0]), s(x[1]), s(x[2]), x[3], s(x[4]), x[5], s(x[6])] for x in n[7]], n[8],
                   [[s(i), s(f)] for i, f in n[9]]] for n in d["nodes"]]
    return d


# --------------------------------------------------------------------------- the data


def test_the_seed_report_carries_the_replay_of_its_backward(tmp_path):
    d = explorer_data(report(tmp_path, SEED).read_text())
    names = [n[0] for n in d["nodes"]]
    assert len(d["steps"]) == d["ran"] == len(names) == 12  # every node ran once
    assert names[d["steps"][0][0]] == "SumBackward0"  # the root first
    accumulate = [s for s in d["steps"] if names[s[0]] == "AccumulateGrad"]
    assert len(accumulate) == 5 and all(s[2] == [] for s in accumulate)  # they write .grad, send nothing on
    a = next(s for s in d["steps"] if d["nodes"][s[0]][6] and d["nodes"][s[0]][6][0] == "a")
    # a gets two contributions (through b and through c): the step's arriving gradient is their sum
    senders = [s for s in d["steps"] if any(e[0] == a[0] for e in d["nodes"][s[0]][8])]
    assert len(senders) == 2
    total = [sum(t) for t in zip(*[s[2][[e[0] for e in d["nodes"][s[0]][8]].index(a[0])][2] for s in senders])]
    assert a[1][0][2] == pytest.approx(total, rel=1e-4, abs=1e-5)  # kept to 6 digits
    mul = next(n for n in d["nodes"] if n[0] == "MulBackward0" and n[1] == ["b"])
    assert mul[3] == "seed_graph.py:13" and mul[4] == "b = w1 * a"
    assert [s[0] for s in mul[7]] == ["_saved_self", "_saved_other"] and mul[7][0][5] == 36  # bytes


def test_a_second_backward_shows_the_grad_it_adds_to(tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        y = (w * w).sum()
        y.backward(retain_graph=True)
        y.backward()
        """))
    d = explorer_data(report(tmp_path, script).read_text())
    (step,) = [s for s in d["steps"] if d["nodes"][s[0]][6]]
    assert step[3][2] == [2.0, -4.0] and step[4][2] == [4.0, -8.0]  # w.grad before and after the second pass
    # the first pass through the same graph is a lane of its own
    (lane,) = d["lanes"]
    assert lane[0] == "backward at script.py:4" and d["call"] == "backward at script.py:5"
    (first,) = [s for s in lane[1] if d["nodes"][s[0]][6]]
    assert first[3] is None and first[4][2] == [2.0, -4.0]


def test_a_run_without_a_report_records_no_replay(tmp_path):
    r = invoke("run", SEED, "--json", "--tree")
    assert "steps" not in r.stdout  # the hooks go on only for the explorer


def test_untrusted_text_cannot_leave_the_data_block(tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        x = torch.ones(2, requires_grad=True)
        y = (x * 2).sum()  # </script><script>alert(1)</script><!--
        y.backward()
        """))
    page = report(tmp_path, script).read_text()
    assert "</script><script>alert(1)" not in page
    d = explorer_data(page)
    assert any("</script><script>alert(1)</script>" in n[4] for n in d["nodes"])  # as text, in the data


# --------------------------------------------------------------------------- in Chromium


@pytest.fixture()
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()


def open_page(browser, path, problems):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("dialog", lambda d: (problems.append("dialog: " + d.message), d.dismiss()))
    page.on("requestfailed", lambda r: problems.append("request: " + r.url))
    start = time.monotonic()
    page.goto(path.as_uri())
    page.wait_for_function("() => [...document.querySelectorAll('figure.gv-explorer')].every(f => f.gvExplorer)")
    return page, time.monotonic() - start


@needs_chromium
@pytest.mark.slow
def test_a_learner_steps_the_seed_backward_until_a_grad_is_written(browser, tmp_path):
    problems = []
    page, _ = open_page(browser, report(tmp_path, SEED), problems)
    fig = page.locator("figure.gv-explorer").last
    stepno = fig.get_by_role("status").filter(has_text="step")
    assert stepno.text_content() == "step 0 of 12"
    step = fig.get_by_role("button", name="Step")
    details = fig.locator(".gv-details")
    step.click()
    assert stepno.text_content() == "step 1 of 12"
    assert details.inner_text().startswith("SumBackward0 → L")
    assert fig.locator("g.node.gv-run").count() == 1 and fig.locator("g.edge.gv-flow").count() >= 1
    for _ in range(11):
        step.click()
        if "writes a.grad" in details.inner_text():
            break
    text = details.inner_text()
    assert "writes a.grad = (3, 3) [" in text and "a.grad before this backward: None" in text
    assert re.search(r"= \[?.* from MulBackward0 n\d+ \+ .* from MulBackward0 n\d+", text)  # the terms at fan-in
    fig.get_by_role("button", name="Back").click()
    assert stepno.text_content().startswith("step ") and "writes a.grad" not in details.inner_text()
    play = fig.get_by_role("button", name="Play")
    play.click()
    assert fig.get_by_role("button", name="Pause").get_attribute("aria-pressed") == "true"
    page.wait_for_function("() => document.querySelector('figure.gv-explorer:last-of-type .gv-stepno')"
                           ".textContent === 'step 12 of 12'", timeout=15_000)
    assert fig.get_by_role("button", name="Play").get_attribute("aria-pressed") == "false"  # stops at the end
    fig.screenshot(path=str(tmp_path / "replay.png"))
    assert problems == []


@needs_chromium
@pytest.mark.slow
def test_each_backward_call_through_a_graph_has_its_lane(browser, tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        y = (w * w).sum()
        y.backward(retain_graph=True)
        y.backward()
        """))
    problems = []
    page, _ = open_page(browser, report(tmp_path, script), problems)
    fig = page.locator("figure.gv-explorer").last
    lane = fig.get_by_role("combobox", name="Backward call")
    assert lane.input_value() == "1"  # the last call first
    for _ in range(4):
        fig.get_by_role("button", name="Step").click()
    assert "w.grad before this backward: (2,) [2, -4]" in fig.locator(".gv-details").inner_text()
    assert lane.locator("option").all_text_contents() == ["1. backward at script.py:4", "2. backward at script.py:5"]
    lane.select_option(label="1. backward at script.py:4")
    assert fig.locator(".gv-stepno").text_content() == "step 0 of 3"
    for _ in range(4):
        fig.get_by_role("button", name="Step").click()
    text = fig.locator(".gv-details").inner_text()
    assert "w.grad before this backward: None" in text and "writes w.grad = (2,) [2, -4]" in text
    assert problems == []


@needs_chromium
@pytest.mark.slow
def test_search_selects_and_describes_what_a_node_saved(browser, tmp_path):
    problems = []
    page, _ = open_page(browser, report(tmp_path, SEED), problems)
    fig = page.locator("figure.gv-explorer").last
    box = fig.get_by_role("searchbox", name="Search the graph")
    box.fill("w1")
    assert fig.locator(".gv-matches").text_content() == "3 matches"  # the leaf, b's node, the forward op
    box.press("Enter")
    assert fig.locator(".gv-matches").text_content() == "1 of 3 matches"
    assert fig.locator("g.node.gv-sel").count() == 1
    box.press("ArrowDown")
    assert fig.locator(".gv-matches").text_content() == "2 of 3 matches"
    box.fill("seed_graph.py:13")
    box.press("Enter")
    text = fig.locator(".gv-details").inner_text()
    assert "MulBackward0 → b" in text and "b = w1 * a" in text
    assert "_saved_self = w1" in text and "(3, 3) float32 · 36 bytes · freed by backward at seed_graph.py:20" in text
    box.fill("no such thing")
    assert fig.locator(".gv-matches").text_content() == "no match"
    # a click on a box selects what it stands for
    fig.get_by_role("button", name="fit").click()
    fig.locator("g.node", has_text="RsubBackward1").first.click()
    assert fig.locator(".gv-details h4").text_content().startswith("RsubBackward1")
    assert problems == []


@needs_chromium
@pytest.mark.slow
def test_a_100000_op_chain_report_opens_within_5_seconds(browser, tmp_path):
    script = write(tmp_path, textwrap.dedent("""\
        import torch
        x = torch.randn(4, requires_grad=True)
        y = x
        for i in range(25000):
            y = torch.tanh(y * 1.01 + 0.5).sin()
        y.sum().backward()
        """))
    path = report(tmp_path, script, "--timeout", "300")
    problems = []
    page, ready = open_page(browser, path, problems)
    assert ready < 5.0, ready
    fig = page.locator("figure.gv-explorer").last
    start = time.monotonic()
    fig.get_by_role("button", name="Step").click()
    steps = re.fullmatch(r"step 1 of (\d+)", fig.locator(".gv-stepno").text_content())
    assert steps and int(steps.group(1)) > 100_000  # every node of the chain ran
    assert time.monotonic() - start < 1.0
    assert problems == []


@needs_chromium
@pytest.mark.slow
def test_a_practitioner_finds_what_the_first_blocks_layer_norm_saved(browser, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from _cli_helpers import ROOT

    path = report(tmp_path, str(ROOT / "bench" / "models" / "gpt2_12.py"), "--engine", "torch")
    problems = []
    page, ready = open_page(browser, path, problems)
    assert ready < 3.0, ready
    fig = page.locator("figure.gv-explorer").last
    box = fig.get_by_role("searchbox", name="Search the graph")
    box.fill("ln_1")
    assert re.fullmatch(r"\d+ matches", fig.locator(".gv-matches").text_content())
    box.press("Enter")
    text = fig.locator(".gv-details").inner_text()
    assert text.startswith("NativeLayerNormBackward0") and "module: model.module.transformer.h.0.ln_1" in text
    assert "(2, 16, 768) float32 · 98,304 bytes · freed by backward" in text  # what it saved, how big
    assert "gradient of each input" in text.lower() and "input: " in text
    # module groups open and close in place: another layout, the selection kept in sight
    depth = fig.locator(".gv-depthno")
    level = int(re.search(r"depth (\d+) of", depth.text_content()).group(1))
    fig.get_by_role("button", name="Open a level").click()
    assert depth.text_content().startswith(f"modules open to depth {level + 1} of ")
    assert fig.locator("g.node.gv-sel").count() == 1 and "h.0.ln_1" in fig.locator(".gv-details").inner_text()
    fig.get_by_role("button", name="Close a level").click()
    fig.get_by_role("button", name="Close a level").click()
    assert depth.text_content().startswith(f"modules open to depth {level - 1} of ")
    fig.get_by_role("button", name="fit").click()
    assert fig.locator(".gv-viewport svg").get_attribute("viewBox").startswith("0 0 ")  # seen whole
    fig.get_by_role("button", name="Focus on its neighbourhood").click()
    assert "gv-focus" in fig.locator(".gv-viewport svg").get_attribute("class")
    fig.get_by_role("button", name="Show all").click()
    assert "gv-focus" not in (fig.locator(".gv-viewport svg").get_attribute("class") or "")
    start = time.monotonic()
    for _ in range(20):
        fig.get_by_role("button", name="Step").click()
    assert (time.monotonic() - start) / 20 < 0.2  # each step well within a frame budget of 200 ms
    assert fig.locator(".gv-stepno").text_content().startswith("step 20 of ")
    assert problems == []


HOSTILE = '<img src=x onerror=alert(1)>'


@needs_chromium
@pytest.mark.slow
def test_every_text_field_of_the_explorer_stays_text(browser, tmp_path):
    """Module paths (a dict key), tensor names, lines of code, saved slot names and the
    report's other texts, each carrying markup: shown as written, never run."""
    script = write(tmp_path, textwrap.dedent(f"""\
        import torch
        models = {{{HOSTILE!r}: torch.nn.Linear(2, 1)}}
        x = torch.ones(3, 2)
        out = models[{HOSTILE!r}](x).sum() + (models[{HOSTILE!r}].weight ** 2).sum()  # {HOSTILE}
        out.backward()
        print({HOSTILE!r})
        """))
    page_text = report(tmp_path, script).read_text()
    d = explorer_data(page_text)
    fields = {"module": [n[2] for n in d["nodes"]], "leaf": [n[6][0] for n in d["nodes"] if n[6]],
              "code": [n[4] for n in d["nodes"]], "saved": [x[1] for n in d["nodes"] for x in n[7]]}
    for field, texts in fields.items():
        assert any(HOSTILE in (t or "") for t in texts), field  # the hostile text reached every field...
    problems = []
    page, _ = open_page(browser, tmp_path / "report.html", problems)
    fig = page.locator("figure.gv-explorer").last
    fig.get_by_role("searchbox").fill("onerror")
    assert fig.locator(".gv-matches").text_content().endswith("matches")
    for _ in range(4):  # ...and each is shown as text as the matches are read
        fig.get_by_role("searchbox").press("Enter")
        assert HOSTILE in fig.locator(".gv-details").inner_text()
    for _ in range(4):
        fig.get_by_role("button", name="Step").click()
    assert page.locator("img").count() == 0 and problems == []


@needs_chromium
@pytest.mark.slow
def test_a_notebook_that_runs_no_script_shows_the_picture_alone(browser, tmp_path):
    """JupyterLab, classic Notebook and VS Code run no script in an untrusted notebook:
    the explorer's output is then the static picture, with no control that does nothing."""
    import gradviz
    import gradviz.torch as torch

    w = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (w.exp() * 3).sum()
    bundle = gradviz.show(loss, names={"w": w})._repr_mimebundle_()
    page_path = tmp_path / "output.html"
    page_path.write_text(f"<!DOCTYPE html><html><body>{bundle['text/html']}</body></html>")
    for scripts, controls in ((False, 0), (True, 1)):
        context = browser.new_context(java_script_enabled=scripts)
        page = context.new_page()
        page.goto(page_path.as_uri())
        assert page.locator(".gv-viewport svg").is_visible()
        assert page.get_by_role("searchbox").count() == controls
        assert page.get_by_role("button", name="fit").count() == controls
        context.close()


@needs_chromium
@pytest.mark.slow
def test_the_first_nan_is_selected_and_missing_gradients_are_marked(browser, tmp_path):
    from _cli_helpers import SAMPLES

    path = tmp_path / "nan.html"
    assert invoke("run", str(SAMPLES / "nan_sqrt.py"), "--nan", "--html", path).exit_code == 0
    problems = []
    page, _ = open_page(browser, path, problems)
    text = page.locator("figure.gv-explorer").last.locator(".gv-details").inner_text()
    assert text.startswith("SqrtBackward0") and "the first nan of the run started here." in text.lower()
    assert "_saved_result = torch.sqrt(x)" in text
    page, _ = open_page(browser, report(tmp_path, str(SAMPLES / "why_no_grad.py"), name="why.html"), problems)
    fig = page.locator("figure.gv-explorer").last
    assert fig.locator("g.node.gv-noreason").count() == 2  # the dead layer's weight and bias: zero
    fig.get_by_role("searchbox").fill("dead.weight")
    fig.get_by_role("searchbox").press("Enter")
    assert "why no gradient: zero: the gradient reached it and is all zero" in fig.locator(".gv-details").inner_text()
    assert problems == []


@needs_chromium
@pytest.mark.slow
def test_boxes_can_be_coloured_by_the_bytes_their_nodes_saved(browser, tmp_path):
    problems = []
    page, _ = open_page(browser, report(tmp_path, SEED), problems)
    fig = page.locator("figure.gv-explorer").last
    button = fig.get_by_role("button", name="Colour by saved bytes")
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    heated = fig.locator("g.node title[data-bytes]")
    assert heated.count() == 4  # the four MulBackward0 nodes saved tensors (Add, Rsub, Sum save none)
    assert {heated.nth(k).get_attribute("data-bytes") for k in range(heated.count())} == {"72"}  # two (3, 3)s
    fills = fig.locator("g.node polygon[fill^='hsl']")
    assert fills.count() == 4
    button.click()
    assert fig.locator("g.node polygon[fill^='hsl']").count() == 0  # and back
    assert problems == []
