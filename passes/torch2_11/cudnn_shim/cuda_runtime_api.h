// The two CUDA runtime types cudnn_graph.h names (in declarations kernelcount never calls), so
// that cudnn_heuristics.cc builds with cuDNN's headers alone: a machine may have cuDNN's wheel
// and no CUDA toolkit. Searched before any real CUDA include folder, for that file only.
#pragma once

typedef struct CUstream_st* cudaStream_t;
typedef struct CUgraph_st* cudaGraph_t;
