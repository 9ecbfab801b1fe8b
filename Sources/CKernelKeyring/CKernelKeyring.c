// The wrappers are static inline functions in include/CKernelKeyring.h; a C target needs one source file.
#include "CKernelKeyring.h"
