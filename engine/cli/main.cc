#include "engine/cli/cli.h"

int main(int argc, char** argv) { return pe::cli::Run(argc, argv); }
