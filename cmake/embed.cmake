# Writes OUT, a C file defining `const char NAME[]` holding the text of IN
# (used for the reference data the binary carries: data/tpu-profiles/*.csv).
# Usage: cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
file(READ "${IN}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\r" "" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
file(WRITE "${OUT}" "/* Generated from ${IN} by cmake/embed.cmake; do not edit. */\n"
                    "extern const char ${NAME}[];\n"
                    "const char ${NAME}[] =\n\"${text}\";\n")
