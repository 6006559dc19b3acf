/* fuzz.h - the entry point every fuzz target defines. The same target links against
 * libFuzzer (`make fuzz`, clang) or against replay.c (`make test`: any compiler), so the
 * seed corpus and every past crash are replayed on each test run. */
#ifndef STRATA_FUZZ_H
#define STRATA_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Run one input; must return 0 and never crash, hang or leak, whatever the bytes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
