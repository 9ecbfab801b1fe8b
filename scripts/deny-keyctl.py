#!/usr/bin/env python3
"""Runs a command with the kernel keyring's system calls denied, as Docker's default seccomp profile does.

    scripts/deny-keyctl.py PROGRAM [ARGUMENT...]

Installs a seccomp filter that makes `add_key`, `request_key` and `keyctl` fail with EPERM (what Docker's
default profile answers for them), sets no_new_privs (which an unprivileged filter needs, and which every
Docker container has), then replaces itself with PROGRAM. The filter is inherited by PROGRAM and its children
and cannot be removed.

The filter checks the calling convention (the audit architecture) first: the x86_64 numbers (248, 249, 250;
the x32 ABI's too) and the aarch64 ones (217, 218, 219) are denied, and every other call, or a call of any
other architecture, is let through. It is a test harness for one program, not a sandbox.

Needs nothing but python3 (ctypes) and Linux 3.5 or later. Exit status 70 when the filter cannot be installed,
127 when PROGRAM cannot be run.
"""

import ctypes
import os
import sys

# <linux/audit.h>: the architecture a system call was made with (seccomp_data.arch).
AUDIT_ARCH_X86_64 = 0xC000003E
AUDIT_ARCH_AARCH64 = 0xC00000B7
# add_key, request_key, keyctl, per architecture (<asm/unistd.h>).
KEYRING_CALLS = {AUDIT_ARCH_X86_64: (248, 249, 250), AUDIT_ARCH_AARCH64: (217, 218, 219)}
X32_SYSCALL_BIT = 0x40000000  # x86_64's x32 ABI: the same numbers with this bit set, the same audit arch

# <linux/filter.h>, <linux/seccomp.h>
BPF_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS: A = the 32-bit word at offset k of seccomp_data
BPF_ALU_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K: A &= k
BPF_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K: if A == k skip jt instructions, else jf
BPF_RET_K = 0x06  # BPF_RET | BPF_K: return k
OFFSET_NR, OFFSET_ARCH = 0, 4  # struct seccomp_data { int nr; __u32 arch; ... }
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
EPERM = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def program():
    """The filter as (code, jump-if-true label, jump-if-false label, k); a label names an instruction below."""
    code = [("load arch", BPF_LD_W_ABS, None, None, OFFSET_ARCH)]
    for arch, numbers in KEYRING_CALLS.items():
        code.append((None, BPF_JEQ_K, None, f"not {arch:#x}", arch))
        code.append((None, BPF_LD_W_ABS, None, None, OFFSET_NR))
        if arch == AUDIT_ARCH_X86_64:
            code.append((None, BPF_ALU_AND_K, None, None, 0xFFFFFFFF & ~X32_SYSCALL_BIT))
        code += [(None, BPF_JEQ_K, "deny", None, number) for number in numbers]
        code.append((None, BPF_RET_K, None, None, SECCOMP_RET_ALLOW))
        code.append((f"not {arch:#x}", BPF_LD_W_ABS, None, None, OFFSET_ARCH))  # A again, for the next test
    code.append((None, BPF_RET_K, None, None, SECCOMP_RET_ALLOW))
    code.append(("deny", BPF_RET_K, None, None, SECCOMP_RET_ERRNO | EPERM))
    labels = {label: index for index, (label, *_) in enumerate(code) if label}

    def offset(index, target):
        """How many instructions a jump from `index` to `target` skips; no target falls through."""
        return 0 if target is None else labels[target] - index - 1

    return [SockFilter(op, offset(i, jt), offset(i, jf), k) for i, (_, op, jt, jf, k) in enumerate(code)]


def deny_keyring_calls():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    instructions = program()
    filters = (SockFilter * len(instructions))(*instructions)
    fprog = SockFprog(len(instructions), filters)
    steps = [
        ("setting no_new_privs", (PR_SET_NO_NEW_PRIVS, 1, None, 0, 0)),
        ("installing the seccomp filter", (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0)),
    ]
    for action, arguments in steps:
        if libc.prctl(*arguments) != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"{action} failed ({os.strerror(number)}); this needs Linux with seccomp filters")


def main():
    if len(sys.argv) < 2:
        print("usage: deny-keyctl.py PROGRAM [ARGUMENT...]", file=sys.stderr)
        sys.exit(64)
    try:
        deny_keyring_calls()
    except OSError as failure:
        print(f"deny-keyctl: {failure.strerror}", file=sys.stderr)
        sys.exit(70)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    except OSError as failure:
        print(f"deny-keyctl: cannot run {sys.argv[1]}: {failure.strerror}", file=sys.stderr)
        sys.exit(127)


if __name__ == "__main__":
    main()
