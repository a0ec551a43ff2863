# Writes OUTPUT, a C++ source holding INPUT's text as kc::kSchemaTable (analyzer/op_registry.cc).
# Run by the build (cmake -DINPUT=... -DOUTPUT=... -P embed_table.cmake) whenever INPUT changes.
file(READ "${INPUT}" text)
string(LENGTH "${text}" size)
# Raw string pieces well under compilers' literal limits, joined by the compiler.
set(body "\"\"\n")
set(at 0)
while(at LESS size)
  string(SUBSTRING "${text}" ${at} 60000 piece)
  string(APPEND body "R\"kcschema(${piece})kcschema\"\n")
  math(EXPR at "${at} + 60000")
endwhile()
file(WRITE "${OUTPUT}.tmp" "// Generated from ${INPUT} by embed_table.cmake; do not edit.\n#include <cstddef>\nnamespace kc {\nextern const char kSchemaTable[];\nextern const size_t kSchemaTableSize;\nconst char kSchemaTable[] =\n${body};\nconst size_t kSchemaTableSize = sizeof(kSchemaTable) - 1;\n}  // namespace kc\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
