# Sets FLASHSIM_HAVE_CUDA and enables the CUDA language when nvcc exists.
# CI runs without a login shell, so nvcc may be missing from PATH even though
# the toolkit is installed: look where the toolkit's profile script would
# point PATH (CUDA_HOME, CUDA_PATH, /usr/local/cuda).
set(FLASHSIM_HAVE_CUDA OFF)
if(NOT FLASHSIM_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(FLASHSIM_NVCC nvcc
      HINTS ENV CUDA_HOME ENV CUDA_PATH
      PATH_SUFFIXES bin
      PATHS /usr/local/cuda /usr/local/cuda-13.0 /opt/cuda)
    if(FLASHSIM_NVCC)
      set(CMAKE_CUDA_COMPILER "${FLASHSIM_NVCC}" CACHE FILEPATH "nvcc" FORCE)
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES ${FLASHSIM_CUDA_ARCHITECTURES})
    endif()
    # CMake 3.25 knows no C++20 flag for nvcc 13; the kernels need only C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(FLASHSIM_HAVE_CUDA ON)
    message(STATUS "flashsim: CUDA backend enabled (${CMAKE_CUDA_COMPILER})")
  elseif(FLASHSIM_CUDA STREQUAL "ON")
    message(FATAL_ERROR "FLASHSIM_CUDA=ON but no CUDA compiler was found; set CUDACXX or CUDA_HOME")
  else()
    message(STATUS "flashsim: no CUDA compiler found; building without hw/")
  endif()
endif()
