# cmake -DNM=<nm> -DLIBRARY=<archive> -DEXPECT=absent|present -P torch_symbols.cmake
# Lists the undefined symbols of a static library (nm --undefined-only, demangled) and
# checks whether any is LibTorch's (namespaces at::, c10::, c10d::, torch::). `absent`:
# gfn_transport must not need LibTorch; `present`: the control (gfn_transport_gloo), which
# shows the check can see a LibTorch dependency when there is one.
execute_process(COMMAND ${NM} -C --undefined-only ${LIBRARY} OUTPUT_VARIABLE symbols
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIBRARY}: ${err}")
endif()
string(REGEX MATCHALL "[^\n]*(^|[ (,<*&])(at|c10|c10d|torch)::[^\n]*" torch_symbols "${symbols}")
list(LENGTH torch_symbols n)
if(EXPECT STREQUAL "absent" AND n GREATER 0)
  list(SUBLIST torch_symbols 0 5 first)
  string(REPLACE ";" "\n  " first "${first}")
  message(FATAL_ERROR "${LIBRARY} needs ${n} LibTorch symbols, e.g.\n  ${first}\n"
                      "gfn_transport must not use LibTorch (transport/CMakeLists.txt)")
elseif(EXPECT STREQUAL "present" AND n EQUAL 0)
  message(FATAL_ERROR "no LibTorch symbol found in ${LIBRARY}: the check sees nothing")
endif()
message(STATUS "${LIBRARY}: ${n} undefined LibTorch symbols (expected ${EXPECT})")
