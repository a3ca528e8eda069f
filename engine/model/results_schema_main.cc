// Prints the results file's JSON Schema: build/bin/perfengine-results-schema > docs/results.schema.json
#include <iostream>

#include "engine/model/schema.h"

int main() {
  std::cout << pe::model::ResultsSchema().dump(2) << "\n";
  return 0;
}
