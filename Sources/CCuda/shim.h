/* The few CUDA driver types the element uses, declared here: no Debian package ships
 * cuda.h, and nothing CUDA is needed to build. GStreamer's libgstcuda-1.0 opens libcuda at
 * run time and exports wrappers of the driver functions (CuLaunchKernel, CuMemcpy2D, …),
 * which the element looks up with dlsym (Sources/WatermarkElement/CudaLibrary.swift); the
 * layouts below are the driver API's stable ABI (cuda.h, CUDA 4 and later). */
#ifndef WATERMARK_CUDA_SHIM_H
#define WATERMARK_CUDA_SHIM_H

#include <stddef.h>

typedef unsigned long long WMCUdeviceptr;

typedef enum {
  WM_CU_MEMORYTYPE_HOST = 1,
  WM_CU_MEMORYTYPE_DEVICE = 2,
  WM_CU_MEMORYTYPE_ARRAY = 3,
  WM_CU_MEMORYTYPE_UNIFIED = 4
} WMCUmemorytype;

typedef struct {
  size_t srcXInBytes;
  size_t srcY;
  WMCUmemorytype srcMemoryType;
  const void *srcHost;
  WMCUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes;
  size_t dstY;
  WMCUmemorytype dstMemoryType;
  void *dstHost;
  WMCUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
} WMCUDAMemcpy2D;

/* cuDeviceGetAttribute: the compute capability the kernel is compiled for. */
#define WM_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define WM_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* cuEventCreate flags: a host thread waiting on the event sleeps; no timing kept. */
#define WM_CU_EVENT_BLOCKING_SYNC 0x1
#define WM_CU_EVENT_DISABLE_TIMING 0x2

#endif
