// The CUDA library-property type cudnn_graph.h names in cudnnGetProperty (see cuda_runtime_api.h
// beside this file).
#pragma once

typedef enum libraryPropertyType_t { MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL } libraryPropertyType;
