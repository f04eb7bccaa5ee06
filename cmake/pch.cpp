// The translation unit that builds npusim's precompiled headers (cmake/NpusimTargets.cmake).
