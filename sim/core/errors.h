// Exceptions thrown by library code. Only main() turns them into exit codes.
#pragma once
#include <stdexcept>
#include <string>

namespace flashsim {

/// Any error flashsim reports to a user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad user input. The message already names where: file, and line:column
/// (scenarios), record number (traces) or key (parameters).
class InputError : public Error {
 public:
  using Error::Error;
};

/// A value with a unit that could not be parsed ("12 parsecs").
class UnitError : public InputError {
 public:
  using InputError::InputError;
};

/// A name that is not in a registry (unknown policy, allocator, ...).
class UnknownNameError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace flashsim
