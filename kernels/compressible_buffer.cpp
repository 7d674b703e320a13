#include "kernels/compressible_buffer.h"

#include <cuda.h>
#include <cuda_runtime.h>

#include <mutex>
#include <utility>

#include "kernels/attention.h"
#include "kernels/cuda_check.h"
#include "model/error.h"

namespace lcab::kernels {
namespace {

// The driver calls of virtual memory management, from the runtime's driver entry points (as the tensor maps' encode).
struct VmmDriver {
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_get_attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*granularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags) = nullptr;
  CUresult (*create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long) = nullptr;
  CUresult (*properties)(CUmemAllocationProp*, CUmemGenericAllocationHandle) = nullptr;
  CUresult (*reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
  CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) = nullptr;
  CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
  CUresult (*unmap)(CUdeviceptr, size_t) = nullptr;
  CUresult (*address_free)(CUdeviceptr, size_t) = nullptr;
  CUresult (*release)(CUmemGenericAllocationHandle) = nullptr;
};

template <typename Function>
void load_entry(const char* symbol, Function& function) {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult status{};
  LCAB_CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &entry, 12000, cudaEnableDefault, &status));
  LCAB_CHECK(status == cudaDriverEntryPointSuccess && entry != nullptr, "the CUDA driver has no " << symbol);
  function = reinterpret_cast<Function>(entry);
}

const VmmDriver& vmm_driver() {
  static VmmDriver driver;
  static std::once_flag once;
  std::call_once(once, [] {
    load_entry("cuDeviceGet", driver.device_get);
    load_entry("cuDeviceGetAttribute", driver.device_get_attribute);
    load_entry("cuMemGetAllocationGranularity", driver.granularity);
    load_entry("cuMemCreate", driver.create);
    load_entry("cuMemGetAllocationPropertiesFromHandle", driver.properties);
    load_entry("cuMemAddressReserve", driver.reserve);
    load_entry("cuMemMap", driver.map);
    load_entry("cuMemSetAccess", driver.set_access);
    load_entry("cuMemUnmap", driver.unmap);
    load_entry("cuMemAddressFree", driver.address_free);
    load_entry("cuMemRelease", driver.release);
  });
  return driver;
}

void check_driver(CUresult result, const char* call, const char* file, int line) {
  if (result == CUDA_SUCCESS) return;
  if (result == CUDA_ERROR_OUT_OF_MEMORY) throw OutOfMemory(std::string(call) + " failed: CUDA_ERROR_OUT_OF_MEMORY");
  throw Error(std::string(call) + " failed with CUresult " + std::to_string(static_cast<int>(result)) + " (" + file +
              ":" + std::to_string(line) + ")");
}

#define LCAB_DRIVER_CHECK(call) check_driver((call), #call, __FILE__, __LINE__)

int current_device() {
  int ordinal = 0;
  LCAB_CUDA_CHECK(cudaGetDevice(&ordinal));
  LCAB_CUDA_CHECK(cudaFree(nullptr));  // the primary context, current on this thread, for the driver calls
  return ordinal;
}

CUmemAllocationProp compressible_properties(int ordinal) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = ordinal;
  prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
  return prop;
}

}  // namespace

bool CompressibleBuffer::device_supports_compression() {
  const VmmDriver& driver = vmm_driver();
  CUdevice device = 0;
  LCAB_DRIVER_CHECK(driver.device_get(&device, current_device()));
  int supported = 0;
  LCAB_DRIVER_CHECK(driver.device_get_attribute(&supported, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, device));
  return supported != 0;
}

CompressibleBuffer::CompressibleBuffer(size_t bytes, Request request) : bytes_(bytes) {
  if (bytes == 0) return;
  if (request == Request::kPlain || !device_supports_compression()) {
    allocate_plain();
    return;
  }
  const VmmDriver& driver = vmm_driver();
  const CUmemAllocationProp prop = compressible_properties(current_device());
  size_t granularity = 0;
  LCAB_DRIVER_CHECK(driver.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t mapped = (bytes + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  if (driver.create(&handle, mapped, &prop, 0) != CUDA_SUCCESS) {
    // Out of memory or of the driver's compression resources: plain memory, whose cudaMalloc throws OutOfMemory
    // where the memory itself has run out.
    allocate_plain();
    return;
  }
  CUmemAllocationProp granted{};
  LCAB_DRIVER_CHECK(driver.properties(&granted, handle));
  if (granted.allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_GENERIC) {
    // Granted without compression (the driver's compression resources are limited): plain memory, one code path.
    LCAB_DRIVER_CHECK(driver.release(handle));
    allocate_plain();
    return;
  }
  CUdeviceptr address = 0;
  try {
    LCAB_DRIVER_CHECK(driver.reserve(&address, mapped, granularity, 0, 0));
    LCAB_DRIVER_CHECK(driver.map(address, mapped, 0, handle, 0));
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    LCAB_DRIVER_CHECK(driver.set_access(address, mapped, &access, 1));
  } catch (...) {
    if (address != 0) {
      driver.unmap(address, mapped);
      driver.address_free(address, mapped);
    }
    driver.release(handle);
    throw;
  }
  data_ = reinterpret_cast<void*>(address);
  device_ = prop.location.id;
  mapped_bytes_ = mapped;
  handle_ = handle;
}

void CompressibleBuffer::allocate_plain() {
  plain_ = DeviceBuffer(bytes_);
  data_ = plain_.as<void>();
}

void CompressibleBuffer::release() noexcept {
  if (mapped_bytes_ > 0) {
    const VmmDriver& driver = vmm_driver();
    // As cudaFree: no kernel on the buffer's device may still use the range (the current device may be another one,
    // where one process drives several GPUs).
    int current = device_;
    cudaGetDevice(&current);
    if (current != device_) cudaSetDevice(device_);
    cudaDeviceSynchronize();
    if (current != device_) cudaSetDevice(current);
    const auto address = reinterpret_cast<CUdeviceptr>(data_);
    driver.unmap(address, mapped_bytes_);
    driver.address_free(address, mapped_bytes_);
    driver.release(handle_);
  }
  plain_ = DeviceBuffer();
  data_ = nullptr;
  bytes_ = mapped_bytes_ = 0;
  handle_ = 0;
  device_ = 0;
}

CompressibleBuffer::~CompressibleBuffer() { release(); }

CompressibleBuffer::CompressibleBuffer(CompressibleBuffer&& other) noexcept { *this = std::move(other); }

CompressibleBuffer& CompressibleBuffer::operator=(CompressibleBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
    handle_ = std::exchange(other.handle_, 0);
    device_ = std::exchange(other.device_, 0);
    plain_ = std::move(other.plain_);
  }
  return *this;
}

}  // namespace lcab::kernels
