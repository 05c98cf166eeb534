"""A listing whose first column is an id the user types (`/resume ID`, `/execute ID`): at any width
the id stays whole. Where the row fits, a table; where it does not (60 columns and a long session
id), each row is its id on a line of its own and the rest under it, wrapped at words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class IdRows:
    def __init__(self, headers: tuple[str, ...], rows: Sequence[tuple[str, ...]]):
        self.headers, self.rows = headers, rows

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.padding import Padding
        from rich.table import Table
        from rich.text import Text

        widths = [max([len(h), *(len(row[i]) for row in self.rows)]) for i, h in enumerate(self.headers)]
        fixed = sum(widths[:-1]) + 2 * (len(widths) - 1)  # the whole columns and the gaps between them
        if fixed + min(widths[-1], 8) <= options.max_width:  # room for the task's words, if only one a line
            table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
            for header in self.headers[:-1]:
                table.add_column(header, no_wrap=True)  # ids and words stay whole
            table.add_column(self.headers[-1], overflow="fold")  # wrapped at spaces
            for row in self.rows:  # Text, never markup: a task may well contain [brackets]
                table.add_row(*(Text(cell) for cell in row))
            yield table
            return
        for row in self.rows:
            yield Text(row[0], style="bold", overflow="fold")
            yield Padding(Text(" · ".join(cell for cell in row[1:] if cell), overflow="fold"), (0, 0, 0, 2))
