"""Process exit codes, the same from every front-end: 0 done, 1 stopped by a guard or failed,
2 a usage or configuration error (say which variable or flag to fix)."""

EXIT_DONE = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
