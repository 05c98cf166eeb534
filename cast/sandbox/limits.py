"""Resource limits for sandboxed commands, and the per-run settings the sandbox takes from config.

Each limit is per process (the kernel's rlimits), except processes: RLIMIT_NPROC counts all of a
user's processes and is never enforced for root, so inside a pid namespace the launcher also
caps the namespace's own pid_max (per pid namespace since Linux 6.14); a command cannot raise it
because it runs one namespace further down. Memory is RLIMIT_DATA, not RLIMIT_AS: runtimes that
reserve large address ranges they never touch (Go, V8, the JVM) still start.

Config (`sandbox_limits` table; `sandbox_env_passthrough` list) reaches here through configure(),
called once when a run is built; tests and benches get the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

MB = 1024 * 1024
PID_MAX_FLOOR = 301  # the kernel refuses a smaller pid_max


@dataclass(frozen=True)
class Limits:
    memory_mb: int = 2048  # per process: a 4 GB allocation fails
    processes: int = 512  # at once, in the command's whole tree
    file_size_mb: int = 1024  # the largest file a command may write
    cpu_seconds: int = 600  # per process (the longest bash timeout)

    def rlimits(self) -> dict[str, int]:
        """For the launcher: RLIMIT_* names (without the prefix) and values."""
        return {
            "DATA": self.memory_mb * MB,
            "NPROC": self.processes,
            "FSIZE": self.file_size_mb * MB,
            "CPU": self.cpu_seconds,
            "CORE": 0,
        }

    def pid_max(self) -> int:
        return max(self.processes + 1, PID_MAX_FLOOR)

    def describe(self) -> str:
        return (
            f"{self.memory_mb} MB memory and {self.cpu_seconds} s CPU per process, {self.processes} processes, "
            f"files up to {self.file_size_mb} MB"
        )


@dataclass(frozen=True)
class Settings:
    limits: Limits = field(default_factory=Limits)
    passthrough: tuple[str, ...] = ()


_current = [Settings()]


def configure(passthrough: tuple[str, ...] | list[str] = (), limits: dict[str, int] | None = None) -> None:
    """From config: names to pass through to sandboxed commands, and limits to change."""
    _current[0] = Settings(replace(Limits(), **(limits or {})), tuple(passthrough))


def settings() -> Settings:
    return _current[0]
