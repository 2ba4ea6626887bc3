// The target's functions are static inline in its header; SwiftPM wants a C source to build the target.
#include "MatcherHints.h"
