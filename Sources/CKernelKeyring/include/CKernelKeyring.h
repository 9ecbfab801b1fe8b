// The Linux key retention service's system calls (keyrings(7)), for SecureStore's KernelKeyring.
//
// keyctl(2) and add_key(2) are reached through syscall(2), which Swift cannot call (it is variadic): these
// wrappers give each operation a typed signature. Calling the kernel directly, rather than libkeyutils with
// dlopen, costs a process nothing at start-up and needs no library on the machine. Each returns what the system
// call returns (-1 with errno set on failure); elsewhere than Linux, -1 with errno ENOSYS.
#ifndef CKERNELKEYRING_H
#define CKERNELKEYRING_H

#include <stddef.h>
#include <stdint.h>
#include <errno.h>

#ifdef __linux__
#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#ifdef __linux__

/// add_key(2): a key of `type` named `description` with `payload` in `keyring`; its serial number.
static inline long sessionkit_add_key(const char *type, const char *description, const void *payload, size_t length,
                                      int32_t keyring) {
    return syscall(SYS_add_key, type, description, payload, length, keyring);
}

/// keyctl(KEYCTL_SEARCH): the serial number of the key of `type` named `description` in `keyring` or the
/// keyrings it holds.
static inline long sessionkit_keyctl_search(int32_t keyring, const char *type, const char *description) {
    return syscall(SYS_keyctl, KEYCTL_SEARCH, keyring, type, description, 0);
}

/// keyctl(KEYCTL_READ): copies up to `length` bytes of the key's payload to `buffer`; the payload's whole length
/// (larger than `length` when the buffer was too small; `buffer` may be NULL to ask for the length).
static inline long sessionkit_keyctl_read(int32_t key, void *buffer, size_t length) {
    return syscall(SYS_keyctl, KEYCTL_READ, key, buffer, length);
}

/// keyctl(KEYCTL_SET_TIMEOUT): the key expires `seconds` from now (0: never).
static inline long sessionkit_keyctl_set_timeout(int32_t key, uint32_t seconds) {
    return syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, key, seconds);
}

/// keyctl(KEYCTL_SETPERM): the key's permission mask.
static inline long sessionkit_keyctl_setperm(int32_t key, uint32_t permissions) {
    return syscall(SYS_keyctl, KEYCTL_SETPERM, key, permissions);
}

/// keyctl(KEYCTL_LINK): links `key` (a keyring too) into `keyring`.
static inline long sessionkit_keyctl_link(int32_t key, int32_t keyring) {
    return syscall(SYS_keyctl, KEYCTL_LINK, key, keyring);
}

/// keyctl(KEYCTL_UNLINK): removes the key from `keyring`.
static inline long sessionkit_keyctl_unlink(int32_t key, int32_t keyring) {
    return syscall(SYS_keyctl, KEYCTL_UNLINK, key, keyring);
}

#else

// No kernel keyring: every call fails with ENOSYS, which KernelKeyring reports as "not available here".
static inline long sessionkit_keyring_unavailable(void) {
    errno = ENOSYS;
    return -1;
}
static inline long sessionkit_add_key(const char *type, const char *description, const void *payload, size_t length,
                                      int32_t keyring) {
    return sessionkit_keyring_unavailable();
}
static inline long sessionkit_keyctl_search(int32_t keyring, const char *type, const char *description) {
    return sessionkit_keyring_unavailable();
}
static inline long sessionkit_keyctl_read(int32_t key, void *buffer, size_t length) {
    return sessionkit_keyring_unavailable();
}
static inline long sessionkit_keyctl_set_timeout(int32_t key, uint32_t seconds) {
    return sessionkit_keyring_unavailable();
}
static inline long sessionkit_keyctl_setperm(int32_t key, uint32_t permissions) {
    return sessionkit_keyring_unavailable();
}
static inline long sessionkit_keyctl_link(int32_t key, int32_t keyring) {
    return sessionkit_keyring_unavailable();
}
static inline long sessionkit_keyctl_unlink(int32_t key, int32_t keyring) {
    return sessionkit_keyring_unavailable();
}

#endif

#endif  // CKERNELKEYRING_H
