// bench/parallel/Families.hpp — the parallel workloads, one file each,
// registered in this order by bench/parallel/ParallelBench.cpp (the order
// of workloads::kParallelWorkloads, which the table follows). Each
// workload's balanced/<workload>/<n> rows come with its others
// (ParallelRow.hpp).
#pragma once

namespace coreactor::bench::parallel {

/// parallel/pairs/<n>, placement/pairs/* (Pairs.cpp).
void registerPairsRows();
/// parallel/forkjoin/<n>, placement/forkjoin/* (ForkJoin.cpp).
void registerForkJoinRows();
/// parallel/ring-one/<n>, parallel/ring-many/<n>, ... (Ring.cpp).
void registerRingRows();
/// parallel/all-to-all/<n>, placement/all-to-all/* (AllToAll.cpp).
void registerAllToAllRows();
/// parallel/pipeline/<n>, placement/pipeline/* (Pipeline.cpp).
void registerPipelineRows();
/// parallel/skew/<n>, balanced/skew/<n> (Skew.cpp).
void registerSkewRows();
/// balanced/converge/ring (Converge.cpp).
void registerConvergeRow();
/// pool/cpu/<n>, pool/cpu-floor/<n> (Pool.cpp).
void registerPoolRows();

}  // namespace coreactor::bench::parallel
