"""``run --memory``'s ledger, for people: what each backward call's graph held for backward."""

from rich.text import Text

from ..safe_text import visible_line
from .console import print_text
from .values import byte_size as size, site_text

TOP = 8  # modules, lines and nodes shown per call


def print_ledgers(console, ledgers) -> None:
    console.print()
    if not ledgers:
        print_text(console, "--memory: the script made no backward call.")
        return
    for ledger in ledgers[-3:]:  # a training loop: its last calls
        _print_ledger(console, ledger)
    if len(ledgers) > 3:
        print_text(console, f"  ({len(ledgers) - 3:,} earlier backward calls: --json lists them)", "dim")
    peak = max(ledgers, key=lambda ledger: ledger.peak_bytes)
    print_text(console, f"Peak held for backward: {size(peak.peak_bytes)}, as backward call {peak.call} began",
               "bold")
    if peak.earlier_bytes:
        print_text(console, f"  of which earlier graphs kept (retain_graph=True): {size(peak.earlier_bytes)}")


def _print_ledger(console, ledger) -> None:
    where = f" at {site_text(ledger.site)}" if ledger.site else ""
    console.print(Text.assemble((f"Saved for backward call {ledger.call}{visible_line(where)}: ", "bold"),
                                (size(ledger.saved_bytes), "bold"),
                                f" in {ledger.storages:,} storage{'s' if ledger.storages != 1 else ''}"))
    print_text(console, f"  parameters {size(ledger.parameter_bytes)}, activations {size(ledger.activation_bytes)}"
                        + ("; all freed as the call ended" if not ledger.kept_bytes and not ledger.freed_later else ""))
    if ledger.kept_bytes or ledger.freed_later:
        later = "".join(f"; freed by call {call}: {size(n)}" for call, n in ledger.freed_later)
        print_text(console, f"  kept after it (retain_graph=True): {size(ledger.kept_bytes)}{later}")
    if ledger.by_module:
        frees = dict(ledger.checkpoint_frees)
        print_text(console, f"  {'held':>10}  {'checkpoint':>10}  by module (checkpoint: what checkpointing it "
                            "frees)", "dim")
        for path, n in ledger.by_module[:TOP]:
            print_text(console, f"  {size(n):>10}  {size(frees.get(path, 0)):>10}  {visible_line(path)}",
                       soft_wrap=True)
    if ledger.by_line:
        print_text(console, f"  {'held':>10}  by line", "dim")
        for site, n in ledger.by_line[:TOP]:
            print_text(console, f"  {size(n):>10}  {visible_line(site_text(site))}", soft_wrap=True)
