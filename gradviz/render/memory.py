"""``run --memory``'s ledger, for people: what each backward call's graph held for backward."""

from rich.text import Text

from ..safe_text import visible_line
from .console import print_text
from .values import site_text

TOP = 8  # modules, lines and nodes shown per call


def print_ledgers(console, ledgers) -> None:
    console.print()
    if not ledgers:
        print_text(console, "--memory: the script made no backward call.")
        return
    for ledger in ledgers[-3:]:  # a training loop: its last calls
        where = f" at {site_text(ledger.site)}" if ledger.site else ""
        console.print(Text.assemble((f"Saved for backward call {ledger.call}{visible_line(where)}: ", "bold"),
                                    (size(ledger.saved_bytes), "bold"),
                                    f" in {ledger.storages:,} storage{'s' if ledger.storages != 1 else ''} "
                                    f"(parameters {size(ledger.parameter_bytes)}, activations "
                                    f"{size(ledger.activation_bytes)})"), soft_wrap=True)
        if ledger.by_module:
            print_text(console, "  by module (what checkpointing it would free, at most):", "dim")
            for path, n in ledger.by_module[:TOP]:
                print_text(console, f"    {size(n):>10}  {visible_line(path)}", soft_wrap=True)
        if ledger.by_line:
            print_text(console, "  by line:", "dim")
            for site, n in ledger.by_line[:TOP]:
                print_text(console, f"    {size(n):>10}  {visible_line(site_text(site))}", soft_wrap=True)
    if len(ledgers) > 3:
        print_text(console, f"  ({len(ledgers) - 3:,} earlier backward calls: --json lists them)", "dim")


def size(n: int) -> str:
    """Bytes as people read them: 512 B, 3.0 KiB, 1.5 MiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
