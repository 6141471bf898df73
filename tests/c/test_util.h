/* Helpers shared by the C test programs. */
#ifndef SECMO_TEST_UTIL_H
#define SECMO_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "secmo.h"

/* The bits of a float, for bit-exact transcripts. */
static unsigned bits(float f) {
    unsigned u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* 0 when r == expected; otherwise prints the call, both codes and the message. */
static int check(SecmoResult r, SecmoResult expected, const char *what) {
    if (r != expected) {
        fprintf(stderr, "%s: got %u, expected %u: %s\n", what, (unsigned)r, (unsigned)expected,
                secmo_last_error_message());
        return 1;
    }
    return 0;
}

#endif
