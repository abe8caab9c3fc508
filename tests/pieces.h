/*
 * pieces.h — a long cmocka test run in pieces: `TEST [FILTER]` runs only
 * the tests whose names match FILTER (cmocka's glob: * and ?), or, with
 * FILTER "!GLOB", all but those.  CMakeLists.txt (V10_TEST_PIECES)
 * registers such a test as pieces that together run each of its tests
 * once, so that ctest -j spreads them over its threads.  Include after
 * <cmocka.h>.
 */
#ifndef V10_TESTS_PIECES_H
#define V10_TESTS_PIECES_H

static inline void v10_test_pieces(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] == '!')
        cmocka_set_skip_filter(argv[1] + 1);
    else if (argc > 1)
        cmocka_set_test_filter(argv[1]);
}

#endif
