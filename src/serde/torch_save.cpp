// torch.save archives read by a restricted pickle reader: a stack machine over the ~35 opcodes
// tensor records use, whose only "calls" are the few allow-listed rebuild functions, evaluated by
// us. Nothing in the file can name code to run: any other global or opcode is refused on sight.
#include "fakeexport/serde/torch_save.h"

#include <bit>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

#include "fakeexport/serde/zip.h"
#include "zip_internal.h"

namespace fe::serde {
namespace {

using zipfmt::quote;
using zipfmt::rd16;
using zipfmt::rd32;
using zipfmt::rd64;

// ---------------------------------------------------------------------------------------------
// A zip in memory (a torch.save nested in a .pt2 entry): stored entries only, zip64 understood.

struct MemZip {
  std::vector<std::pair<std::string, std::span<const std::byte>>> entries;  // central-directory order

  MemZip(std::span<const std::byte> b, const std::string& w) {
    using namespace zipfmt;
    const uint64_t size = b.size();
    FE_CHECK(size > 0, FormatError, w, ": is empty (0 bytes), not a torch.save archive");
    if (size >= 2 && b[0] == std::byte{0x80})
      throw FormatError(w + ": a bare pickle: the legacy torch.save format (PyTorch < 1.6, or "
                            "_use_new_zipfile_serialization=False) is not supported, only the zip format");
    FE_CHECK(size >= kEocdSize, FormatError, w, ": truncated: ", size, " bytes cannot hold a zip archive");
    const std::byte* base = b.data();
    uint64_t eocd = 0;
    bool found = false;
    const uint64_t lowest = size >= kEocdSize + 0xffff ? size - kEocdSize - 0xffff : 0;
    for (uint64_t pos = size - kEocdSize + 1; pos-- > lowest;)
      if (rd32(base + pos) == kEocdSig && pos + kEocdSize + rd16(base + pos + 20) == size) {
        eocd = pos;
        found = true;
        break;
      }
    FE_CHECK(found, FormatError, w, ": not a zip archive (no end-of-central-directory record)");
    uint64_t count = rd16(base + eocd + 10), cd_size = rd32(base + eocd + 12), cd_ofs = rd32(base + eocd + 16);
    if (eocd >= kZip64LocatorSize && rd32(base + eocd - kZip64LocatorSize) == kZip64LocatorSig) {
      const uint64_t z = rd64(base + eocd - kZip64LocatorSize + 8);
      FE_CHECK(z <= eocd - kZip64LocatorSize && eocd - kZip64LocatorSize - z >= kZip64EocdSize &&
                   rd32(base + z) == kZip64EocdSig,
               FormatError, w, ": bad zip64 end-of-central-directory record at offset ", z);
      count = rd64(base + z + 32);
      cd_size = rd64(base + z + 40);
      cd_ofs = rd64(base + z + 48);
    }
    FE_CHECK(cd_ofs <= size && cd_size <= size - cd_ofs && count <= cd_size / kCentralSize, FormatError, w,
             ": central directory (offset ", cd_ofs, ", ", cd_size, " bytes, ", count,
             " entries) does not fit in the archive's ", size, " bytes");
    uint64_t p = cd_ofs;
    const uint64_t cd_end = cd_ofs + cd_size;
    for (uint64_t i = 0; i < count; ++i) {
      FE_CHECK(cd_end - p >= kCentralSize && rd32(base + p) == kCentralSig, FormatError, w,
               ": bad central directory entry #", i, " at offset ", p);
      const std::byte* c = base + p;
      const uint16_t flags = rd16(c + 8), method = rd16(c + 10);
      uint64_t csize = rd32(c + 20), usize = rd32(c + 24), lofs = rd32(c + 42);
      const uint16_t nlen = rd16(c + 28), xlen = rd16(c + 30), clen = rd16(c + 32);
      FE_CHECK(cd_end - p - kCentralSize >= uint64_t{nlen} + xlen + clen, FormatError, w,
               ": central directory entry #", i, " overruns the directory");
      std::string name(reinterpret_cast<const char*>(c + kCentralSize), nlen);
      const std::string ew = w + ": entry " + quote(name);
      // zip64 extra field: the 64-bit values of the 32-bit fields that are saturated, in this order.
      for (const std::byte *x = c + kCentralSize + nlen, *xe = x + xlen; xe - x >= 4;) {
        const uint16_t id = rd16(x), len = rd16(x + 2);
        FE_CHECK(xe - x - 4 >= len, FormatError, ew, ": extra field overruns its header");
        if (id == kZip64ExtraId) {
          const std::byte* f = x + 4;
          auto take = [&](uint64_t& v) {
            if (v != 0xffffffffu) return;
            FE_CHECK(f + 8 <= x + 4 + len, FormatError, ew, ": zip64 extra field too short");
            v = rd64(f);
            f += 8;
          };
          take(usize);
          take(csize);
          take(lofs);
        }
        x += 4 + len;
      }
      FE_CHECK(!(flags & (kFlagEncrypted | kFlagStrongEncryption)), FormatError, ew, ": is encrypted");
      FE_CHECK(method == 0, FormatError, ew, ": compression method ", method,
               ": torch.save stores entries uncompressed and only that is supported");
      FE_CHECK(csize == usize, FormatError, ew, ": stored entry has compressed size ", csize, " but size ", usize);
      FE_CHECK(lofs <= size && size - lofs >= kLocalSize && rd32(base + lofs) == kLocalSig, FormatError, ew,
               ": no local header at offset ", lofs);
      const uint64_t data = lofs + kLocalSize + rd16(base + lofs + 26) + rd16(base + lofs + 28);
      FE_CHECK(data <= size && usize <= size - data, FormatError, ew, ": data (", usize, " bytes at offset ", data,
               ") runs past the archive's end (", size, " bytes)");
      entries.emplace_back(std::move(name), b.subspan(data, usize));
      p += kCentralSize + nlen + xlen + clen;
    }
  }
  std::optional<std::span<const std::byte>> find(std::string_view name) const {
    for (const auto& [n, d] : entries)
      if (n == name) return d;
    return std::nullopt;
  }
  std::string root() const {
    if (entries.empty()) return {};
    const std::string& n = entries.front().first;
    const size_t slash = n.find('/');
    return slash == std::string::npos ? std::string{} : n.substr(0, slash);
  }
};

// ---------------------------------------------------------------------------------------------
// Pickle values

enum class Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Storage, Tensor };
enum class Callable {
  RebuildTensorV2, RebuildTensorV3, RebuildParameter, RebuildParameterWithState, RebuildMeta, OrderedDict,
  DTypeRef,        // a typed storage class (torch.FloatStorage) or a dtype object (torch.float8_e4m3fn)
  UntypedStorage,  // torch.storage.UntypedStorage: the storage type of _rebuild_tensor_v3 records
};

struct Value;
using V = std::shared_ptr<Value>;

struct Value {
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s;                        // Str; a Global's dotted name; a Storage's key
  std::vector<V> items;                 // Tuple, List
  std::vector<std::pair<V, V>> dict;    // Dict (insertion order, as OrderedDict / Python dicts)
  Callable callable{};                  // Global
  DType dtype = DType::Float32;         // Global DTypeRef (a storage class or torch.<dtype>); Storage
  std::shared_ptr<Storage> storage;     // Storage
  int64_t numel = 0;                    // Storage: elements of `dtype` (bytes when untyped)
  bool untyped = false;                 // Storage: named by torch.storage.UntypedStorage (dtype UInt8)
  Tensor tensor;                        // Tensor
};

V make(Kind k) {
  auto v = std::make_shared<Value>();
  v->kind = k;
  return v;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::Tuple: return "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Global: return "global";
    case Kind::Storage: return "storage";
    case Kind::Tensor: return "tensor";
  }
  return "?";
}

/// The torch.<X>Storage classes torch.save names in persistent ids (legacy typed storages).
std::optional<DType> storage_class_dtype(std::string_view n) {
  static const std::pair<std::string_view, DType> kClasses[] = {
      {"FloatStorage", DType::Float32},   {"DoubleStorage", DType::Float64},  {"HalfStorage", DType::Float16},
      {"BFloat16Storage", DType::BFloat16}, {"LongStorage", DType::Int64},   {"IntStorage", DType::Int32},
      {"ShortStorage", DType::Int16},     {"CharStorage", DType::Int8},      {"ByteStorage", DType::UInt8},
      {"BoolStorage", DType::Bool},       {"ComplexFloatStorage", DType::Complex64},
      {"ComplexDoubleStorage", DType::Complex128}};
  for (const auto& [name, t] : kClasses)
    if (n == name) return t;
  return std::nullopt;
}

/// Dtypes without a legacy storage class are named by the dtype object itself (torch.float8_e4m3fn).
std::optional<DType> torch_dtype_object(std::string_view n) {
  for (int k = 0; k < kNumDTypes; ++k)
    if (dtype_name(static_cast<DType>(k)) == n) return static_cast<DType>(k);
  return std::nullopt;
}

const char* opcode_name(uint8_t op) {
  switch (op) {
    case '(': return "MARK"; case '.': return "STOP"; case '0': return "POP"; case '1': return "DUP";
    case '2': return "POP_MARK"; case 'F': return "FLOAT"; case 'I': return "INT"; case 'L': return "LONG";
    case 'P': return "PERSID"; case 'S': return "STRING"; case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING"; case 'V': return "UNICODE"; case 'd': return "DICT";
    case 'g': return "GET"; case 'i': return "INST"; case 'l': return "LIST"; case 'o': return "OBJ";
    case 'p': return "PUT"; case 0x81: return "NEWOBJ"; case 0x82: return "EXT1"; case 0x83: return "EXT2";
    case 0x84: return "EXT4"; case 0x8b: return "LONG4"; case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES"; case 0x8e: return "BINBYTES8"; case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS"; case 0x91: return "FROZENSET"; case 0x92: return "NEWOBJ_EX";
    case 0x96: return "BYTEARRAY8"; case 0x97: return "NEXT_BUFFER"; case 0x98: return "READONLY_BUFFER";
    default: return nullptr;
  }
}

std::string refuse(std::string_view what) {
  return detail::cat("pickled data uses ", what, ", which a weights file never needs; refusing to run it");
}

// ---------------------------------------------------------------------------------------------
// The unpickler

class Unpickler {
 public:
  Unpickler(std::span<const std::byte> pkl, const TorchSaveRecords& records, std::string root, std::string where)
      : d_(pkl), records_(records), root_(std::move(root)), w_(std::move(where)) {}
  Unpickler(const Unpickler&) = delete;
  Unpickler& operator=(const Unpickler&) = delete;
  // A pickle can make a list contain itself. Every cycle passes through a memoized container (a
  // back reference is a memo get), so emptying those frees everything once the values are used:
  // every value ever memoized, since a later BINPUT may overwrite a slot that closed a cycle (found
  // by fuzz_pickle: LeakSanitizer, after 6.4 million executions).
  ~Unpickler() {
    for (const V& v : memoized_) {
      v->items.clear();
      v->dict.clear();
    }
  }

  V run() {
    while (true) {
      const size_t at = pos_;
      const uint8_t op = u8();
      op_at_ = at;
      switch (op) {
        case 0x80: {  // PROTO
          const uint8_t v = u8();
          FE_CHECK(v <= 5, FormatError, w_, ": pickle protocol ", int{v}, " (at byte ", at, ") is newer than 5");
          break;
        }
        case 0x95: take(8); break;  // FRAME: a length hint only
        case '(': marks_.push_back(stack_.size()); break;
        case '.': {
          FE_CHECK(marks_.empty() && stack_.size() == 1, FormatError, w_, ": STOP at byte ", at, " leaves ",
                   stack_.size(), " values and ", marks_.size(), " marks on the stack (expected exactly one value)");
          FE_CHECK(pos_ == d_.size(), FormatError, w_, ": ", d_.size() - pos_, " bytes after STOP at byte ", at);
          return stack_.back();
        }
        case 'c': {
          std::string mod = line(), name = line();
          push(global(mod, name));
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          V name = pop(), mod = pop();
          FE_CHECK(mod->kind == Kind::Str && name->kind == Kind::Str, FormatError, w_,
                   ": STACK_GLOBAL at byte ", at, " needs two strings");
          push(global(mod->s, name->s));
          break;
        }
        case 'Q': push(persistent(pop())); break;
        case 'J': push(integer(static_cast<int32_t>(le(4)))); break;
        case 'K': push(integer(static_cast<int64_t>(le(1)))); break;
        case 'M': push(integer(static_cast<int64_t>(le(2)))); break;
        case 0x8a: {  // LONG1: little-endian two's complement of n bytes
          const uint8_t n = u8();
          FE_CHECK(n <= 8, FormatError, w_, ": LONG1 at byte ", at, " holds a ", int{n} * 8,
                   "-bit integer, wider than int64");
          uint64_t v = n ? le(n) : 0;
          if (n && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);  // sign-extend
          push(integer(static_cast<int64_t>(v)));
          break;
        }
        case 'G': {  // BINFLOAT: big-endian IEEE double
          uint64_t bits = 0;
          for (std::byte x : take(8)) bits = bits << 8 | std::to_integer<uint64_t>(x);
          V v = make(Kind::Float);
          v->f = std::bit_cast<double>(bits);
          push(v);
          break;
        }
        case 'X': push(str(le(4))); break;
        case 0x8c: push(str(le(1))); break;
        case 0x8d: push(str(le(8))); break;
        case 'N': push(make(Kind::None)); break;
        case 0x88:
        case 0x89: {
          V v = make(Kind::Bool);
          v->b = op == 0x88;
          push(v);
          break;
        }
        case ')': push(make(Kind::Tuple)); break;
        case 't': {
          V v = make(Kind::Tuple);
          v->items = pop_mark();
          push(v);
          break;
        }
        case 0x85:
        case 0x86:
        case 0x87: {
          V v = make(Kind::Tuple);
          v->items.resize(op - 0x84);
          for (size_t k = v->items.size(); k-- > 0;) v->items[k] = pop();
          push(v);
          break;
        }
        case ']': push(make(Kind::List)); break;
        case 'a': {
          V x = pop();
          top(Kind::List, "APPEND")->items.push_back(x);
          break;
        }
        case 'e': {
          std::vector<V> xs = pop_mark();
          V l = top(Kind::List, "APPENDS");
          l->items.insert(l->items.end(), xs.begin(), xs.end());
          break;
        }
        case '}': push(make(Kind::Dict)); break;
        case 's': {
          V val = pop(), key = pop();
          set_item(top(Kind::Dict, "SETITEM"), key, val);
          break;
        }
        case 'u': {
          std::vector<V> xs = pop_mark();
          FE_CHECK(xs.size() % 2 == 0, FormatError, w_, ": SETITEMS at byte ", at, " has an odd number (",
                   xs.size(), ") of keys and values");
          V dict = top(Kind::Dict, "SETITEMS");
          for (size_t k = 0; k < xs.size(); k += 2) set_item(dict, xs[k], xs[k + 1]);
          break;
        }
        case 'R': {
          V args = pop(), fn = pop();
          push(reduce(fn, args));
          break;
        }
        case 'b': {
          V state = pop();
          build(top_any("BUILD"), state);
          break;
        }
        case 'q': put_memo(le(1), top_any("BINPUT")); break;
        case 'r': put_memo(le(4), top_any("LONG_BINPUT")); break;
        case 0x94: put_memo(memo_.size(), top_any("MEMOIZE")); break;
        case 'h': push(memo(le(1))); break;
        case 'j': push(memo(le(4))); break;
        default: {
          const char* n = opcode_name(op);
          throw FormatError(detail::cat(w_, ": ", refuse(detail::cat("opcode ", n ? n : "unknown", " (0x",
                                                                     hex2(op), ") at byte ", at))));
        }
      }
    }
  }

 private:
  static std::string hex2(uint8_t v) {
    static const char* h = "0123456789abcdef";
    return {h[v >> 4], h[v & 15]};
  }

  std::span<const std::byte> take(uint64_t n) {
    FE_CHECK(n <= d_.size() - pos_, FormatError, w_, ": truncated: the opcode at byte ", op_at_, " needs ", n,
             " more bytes at byte ", pos_, " but the pickle ends at byte ", d_.size());
    auto s = d_.subspan(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  uint8_t u8() {
    FE_CHECK(pos_ < d_.size(), FormatError, w_, ": truncated: the pickle ends at byte ", d_.size(),
             " without a STOP opcode");
    return std::to_integer<uint8_t>(d_[pos_++]);
  }
  uint64_t le(int n) {
    uint64_t v = 0;
    auto s = take(n);
    for (int k = n; k-- > 0;) v = v << 8 | std::to_integer<uint64_t>(s[k]);
    return v;
  }
  std::string line() {
    size_t start = pos_;
    while (pos_ < d_.size() && d_[pos_] != std::byte{'\n'}) {
      const auto c = std::to_integer<unsigned char>(d_[pos_]);
      FE_CHECK(c >= 0x20 && c < 0x7f && pos_ - start < 256, FormatError, w_, ": GLOBAL at byte ", op_at_,
               " has a malformed name");
      ++pos_;
    }
    FE_CHECK(pos_ < d_.size(), FormatError, w_, ": truncated: GLOBAL at byte ", op_at_, " has no end of line");
    return std::string(reinterpret_cast<const char*>(d_.data() + start), pos_++ - start);
  }
  V str(uint64_t n) {
    auto s = take(n);
    V v = make(Kind::Str);
    v->s.assign(reinterpret_cast<const char*>(s.data()), s.size());
    return v;
  }
  static V integer(int64_t x) {
    V v = make(Kind::Int);
    v->i = x;
    return v;
  }

  void push(V v) { stack_.push_back(std::move(v)); }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  V pop() {
    FE_CHECK(stack_.size() > floor(), FormatError, w_, ": the opcode at byte ", op_at_,
             " needs a value but the stack ", stack_.empty() ? "is empty" : "has only a MARK there");
    V v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  V top_any(const char* op) {
    FE_CHECK(stack_.size() > floor(), FormatError, w_, ": ", op, " at byte ", op_at_, " on an empty stack");
    return stack_.back();
  }
  V top(Kind k, const char* op) {
    V v = top_any(op);
    FE_CHECK(v->kind == k, FormatError, w_, ": ", op, " at byte ", op_at_, " applies to a ", kind_name(v->kind),
             ", not a ", kind_name(k));
    return v;
  }
  std::vector<V> pop_mark() {
    FE_CHECK(!marks_.empty(), FormatError, w_, ": the opcode at byte ", op_at_, " needs a MARK and there is none");
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<V> xs(std::make_move_iterator(stack_.begin() + static_cast<ptrdiff_t>(m)),
                      std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return xs;
  }
  void put_memo(uint64_t k, const V& v) {
    memo_[k] = v;
    memoized_.push_back(v);
  }

  V memo(uint64_t k) {
    auto it = memo_.find(k);
    FE_CHECK(it != memo_.end(), FormatError, w_, ": the get at byte ", op_at_, " reads memo slot ", k,
             ", which was never set");
    return it->second;
  }
  void set_item(const V& dict, const V& key, const V& val) {
    FE_CHECK(key->kind == Kind::Str || key->kind == Kind::Int, FormatError, w_, ": a dict key at byte ", op_at_,
             " is a ", kind_name(key->kind), " (only str and int keys are supported)");
    for (auto& [k, v] : dict->dict)
      if (k->kind == key->kind && k->s == key->s && k->i == key->i) {
        v = val;  // Python keeps the first position and the last value
        return;
      }
    dict->dict.emplace_back(key, val);
  }

  V global(const std::string& mod, const std::string& name) {
    V g = make(Kind::Global);
    g->s = mod + "." + name;
    if (mod == "torch._utils" && name == "_rebuild_tensor_v2") g->callable = Callable::RebuildTensorV2;
    else if (mod == "torch._utils" && name == "_rebuild_tensor_v3") g->callable = Callable::RebuildTensorV3;
    else if ((mod == "torch.storage" || mod == "torch") && name == "UntypedStorage") {
      g->callable = Callable::UntypedStorage;
      g->dtype = DType::UInt8;
    }
    else if (mod == "torch._utils" && name == "_rebuild_parameter") g->callable = Callable::RebuildParameter;
    else if (mod == "torch._utils" && name == "_rebuild_parameter_with_state")
      g->callable = Callable::RebuildParameterWithState;
    else if (mod == "torch._utils" && name == "_rebuild_meta_tensor_no_storage") g->callable = Callable::RebuildMeta;
    else if (mod == "collections" && name == "OrderedDict") g->callable = Callable::OrderedDict;
    else if (auto t = mod == "torch" ? storage_class_dtype(name) : std::nullopt) {
      g->callable = Callable::DTypeRef;
      g->dtype = *t;
    } else if (auto t2 = mod == "torch" ? torch_dtype_object(name) : std::nullopt) {
      g->callable = Callable::DTypeRef;
      g->dtype = *t2;
    } else if (mod == "torch._export.serde.serialize" && name == "_reconstruct_fake_tensor") {
      throw FakeSampleInputsError(w_ + ": fake sample inputs: the pickle rebuilds fake tensors "
                                       "(torch._export.serde.serialize._reconstruct_fake_tensor), which have "
                                       "metadata but no values (the program was exported under FakeTensorMode)");
    } else {
      throw FormatError(detail::cat(w_, ": ", refuse(detail::cat("global ", quote(g->s), " at byte ", op_at_))));
    }
    return g;
  }

  int64_t as_int(const V& v, const char* what) {
    FE_CHECK(v->kind == Kind::Int, FormatError, w_, ": ", what, " (at byte ", op_at_, ") is a ", kind_name(v->kind),
             ", not an int");
    return v->i;
  }
  bool as_bool(const V& v, const char* what) {
    FE_CHECK(v->kind == Kind::Bool, FormatError, w_, ": ", what, " (at byte ", op_at_, ") is a ",
             kind_name(v->kind), ", not a bool");
    return v->b;
  }
  void expect_no_hooks(const V& v) {
    FE_CHECK(v->kind == Kind::Dict, FormatError, w_, ": backward_hooks (at byte ", op_at_, ") is a ",
             kind_name(v->kind), ", not an OrderedDict");
    FE_CHECK(v->dict.empty(), FormatError, w_, ": a tensor at byte ", op_at_, " carries ", v->dict.size(),
             " backward hooks (code, which a weights file never needs)");
  }
  DimVector dims(const V& v, const char* what) {
    FE_CHECK(v->kind == Kind::Tuple, FormatError, w_, ": ", what, " (at byte ", op_at_, ") is a ",
             kind_name(v->kind), ", not a tuple");
    DimVector out;
    for (const V& x : v->items) {
      const int64_t n = as_int(x, what);
      FE_CHECK(n >= 0, FormatError, w_, ": ", what, " (at byte ", op_at_, ") has a negative value ", n);
      out.push_back(SymInt(n));
    }
    return out;
  }

  /// ('storage', torch.<X>Storage | torch.<dtype>, key, location, numel): the storage `key`, read
  /// once from <root>/data/<key> and shared by every tensor that names it.
  V persistent(const V& pid) {
    FE_CHECK(pid->kind == Kind::Tuple && pid->items.size() == 5 && pid->items[0]->kind == Kind::Str &&
                 pid->items[0]->s == "storage",
             FormatError, w_, ": persistent id at byte ", op_at_,
             " is not ('storage', type, key, location, numel) (it is a ", kind_name(pid->kind), " of ",
             pid->items.size(), ")");
    const V& type = pid->items[1];
    FE_CHECK(type->kind == Kind::Global &&
                 (type->callable == Callable::DTypeRef || type->callable == Callable::UntypedStorage),
             FormatError, w_,
             ": persistent id at byte ", op_at_, " names storage type ",
             type->kind == Kind::Global ? quote(type->s) : std::string(kind_name(type->kind)),
             ", not a storage class");
    FE_CHECK(pid->items[2]->kind == Kind::Str && pid->items[3]->kind == Kind::Str, FormatError, w_,
             ": persistent id at byte ", op_at_, " has a non-string key or location");
    const std::string& key = pid->items[2]->s;
    const int64_t numel = as_int(pid->items[4], "storage numel");
    FE_CHECK(numel >= 0, FormatError, w_, ": storage ", quote(key), " has negative numel ", numel);
    if (auto it = storages_.find(key); it != storages_.end()) {
      const bool untyped = type->callable == Callable::UntypedStorage;
      FE_CHECK(it->second->dtype == type->dtype && it->second->untyped == untyped, FormatError, w_, ": storage ",
               quote(key), " is named as ", it->second->untyped ? "untyped" : dtype_name(it->second->dtype),
               " and as ", untyped ? "untyped" : dtype_name(type->dtype));
      return it->second;
    }
    const std::string entry = root_ + "/data/" + key;
    FE_CHECK(!key.empty() && key.find('/') == std::string::npos && zip_name_problem(entry).empty(), FormatError, w_,
             ": storage key ", quote(key), " is not a plain record name");
    int64_t nbytes = 0;
    FE_CHECK(!__builtin_mul_overflow(numel, itemsize(type->dtype), &nbytes), FormatError, w_, ": storage ",
             quote(key), " of ", numel, " elements overflows int64 bytes");
    auto data = records_(entry);
    FE_CHECK(data.has_value(), FormatError, w_, ": storage ", quote(key), " has no record ", quote(entry));
    // PyTorch requires the exact size too ("record size ... does not match expected size").
    FE_CHECK(data->size() == static_cast<uint64_t>(nbytes), FormatError, w_, ": storage ", quote(key), " holds ",
             numel, " ", dtype_name(type->dtype), " elements (", nbytes, " bytes) but its record ", quote(entry),
             " has ", data->size(), " bytes");
    V s = make(Kind::Storage);
    s->s = key;
    s->dtype = type->dtype;
    s->numel = numel;
    s->untyped = type->callable == Callable::UntypedStorage;
    s->storage = std::make_shared<Storage>(static_cast<size_t>(nbytes));
    if (nbytes) std::memcpy(s->storage->data(), data->data(), static_cast<size_t>(nbytes));
    storages_.emplace(key, s);
    return s;
  }

  std::vector<V>& args_of(const V& fn, const V& args, size_t lo, size_t hi) {
    FE_CHECK(args->kind == Kind::Tuple && args->items.size() >= lo && args->items.size() <= hi, FormatError, w_,
             ": ", fn->s, " at byte ", op_at_, " gets ",
             args->kind == Kind::Tuple ? std::to_string(args->items.size()) + " arguments"
                                       : std::string("a ") + kind_name(args->kind),
             ", expected ", lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi));
    return args->items;
  }

  V reduce(const V& fn, const V& args) {
    FE_CHECK(fn->kind == Kind::Global, FormatError, w_, ": ",
             refuse(detail::cat("REDUCE on a ", kind_name(fn->kind), " at byte ", op_at_)));
    switch (fn->callable) {
      case Callable::OrderedDict:
        args_of(fn, args, 0, 0);
        return make(Kind::Dict);
      case Callable::RebuildTensorV2:
      case Callable::RebuildTensorV3: {
        // v2: (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata]) on a
        // typed storage; v3 (dtypes without a storage class): the same on an untyped storage, with the
        // dtype before the metadata.
        const bool v3 = fn->callable == Callable::RebuildTensorV3;
        auto& a = args_of(fn, args, v3 ? 7 : 6, v3 ? 8 : 7);
        FE_CHECK(a[0]->kind == Kind::Storage, FormatError, w_, ": ", fn->s, " at byte ", op_at_,
                 " rebuilds from a ", kind_name(a[0]->kind), ", not a storage");
        const Value& st = *a[0];
        FE_CHECK(st.untyped == v3, FormatError, w_, ": ", fn->s, " at byte ", op_at_, " rebuilds from ",
                 st.untyped ? "an untyped" : "a typed", " storage ", quote(st.s));
        DType dtype = st.dtype;
        if (v3) {
          FE_CHECK(a[6]->kind == Kind::Global && a[6]->callable == Callable::DTypeRef, FormatError, w_, ": ", fn->s,
                   " at byte ", op_at_, " gets no dtype");
          dtype = a[6]->dtype;
        }
        const size_t meta_arg = v3 ? 7 : 6;
        auto impl = std::make_shared<TensorImpl>();
        TensorMeta& m = impl->meta;
        m.storage_offset = SymInt(as_int(a[1], "storage_offset"));
        m.sizes = dims(a[2], "size");
        m.strides = dims(a[3], "stride");
        m.dtype = dtype;
        m.requires_grad = as_bool(a[4], "requires_grad");
        expect_no_hooks(a[5]);
        FE_CHECK(a.size() <= meta_arg || a[meta_arg]->kind == Kind::None || a[meta_arg]->kind == Kind::Dict,
                 FormatError, w_, ": tensor metadata at byte ", op_at_, " is a ", kind_name(a[meta_arg]->kind));
        FE_CHECK(m.sizes.size() == m.strides.size(), FormatError, w_, ": tensor at byte ", op_at_, " has ",
                 m.sizes.size(), " sizes but ", m.strides.size(), " strides");
        FE_CHECK(m.storage_offset.hint() >= 0, FormatError, w_, ": tensor at byte ", op_at_,
                 " has negative storage_offset ", m.storage_offset.hint());
        // Elements the view reaches: offset + sum((size-1)*stride) + 1, unless it is empty.
        bool empty = false;
        for (const SymInt& s : m.sizes) empty |= s.hint() == 0;
        int64_t need = 0;
        if (!empty) {
          bool ovf = __builtin_add_overflow(m.storage_offset.hint(), 1, &need);
          for (size_t k = 0; k < m.sizes.size() && !ovf; ++k) {
            int64_t span = 0;
            ovf = __builtin_mul_overflow(m.sizes[k].hint() - 1, m.strides[k].hint(), &span) ||
                  __builtin_add_overflow(need, span, &need);
          }
          FE_CHECK(!ovf, FormatError, w_, ": tensor at byte ", op_at_, " on storage ", quote(st.s),
                   ": its extent overflows int64");
          int64_t numel = 1;
          for (const SymInt& s : m.sizes)
            FE_CHECK(!__builtin_mul_overflow(numel, s.hint(), &numel), FormatError, w_, ": tensor at byte ",
                     op_at_, ": numel overflows int64");
        }
        if (v3) {  // an untyped storage counts bytes
          FE_CHECK(!__builtin_mul_overflow(need, itemsize(dtype), &need), FormatError, w_, ": tensor at byte ",
                   op_at_, ": its extent overflows int64 bytes");
        }
        FE_CHECK(need <= st.numel, FormatError, w_, ": tensor at byte ", op_at_, " (", m.annotation(),
                 ", stride ", stride_text(m), ", offset ", m.storage_offset.hint(), ") needs ", need,
                 v3 ? " bytes" : " elements", " of storage ", quote(st.s), ", which has only ", st.numel);
        impl->storage = st.storage;
        V t = make(Kind::Tensor);
        t->tensor = Tensor(std::move(impl));
        return t;
      }
      case Callable::RebuildParameter:
      case Callable::RebuildParameterWithState: {
        // (data, requires_grad, backward_hooks[, state]): the state is Python attributes, unused here.
        auto& a = args_of(fn, args, fn->callable == Callable::RebuildParameter ? 3 : 4,
                          fn->callable == Callable::RebuildParameter ? 3 : 4);
        FE_CHECK(a[0]->kind == Kind::Tensor, FormatError, w_, ": ", fn->s, " at byte ", op_at_, " wraps a ",
                 kind_name(a[0]->kind), ", not a tensor");
        auto impl = std::make_shared<TensorImpl>(*a[0]->tensor.impl());
        impl->meta.requires_grad = as_bool(a[1], "requires_grad");
        impl->is_parameter = true;
        expect_no_hooks(a[2]);
        V t = make(Kind::Tensor);
        t->tensor = Tensor(std::move(impl));
        return t;
      }
      case Callable::RebuildMeta: {
        // (dtype, size, stride, requires_grad): a meta tensor, which has no data.
        auto& a = args_of(fn, args, 4, 4);
        FE_CHECK(a[0]->kind == Kind::Global && a[0]->callable == Callable::DTypeRef, FormatError, w_, ": ", fn->s,
                 " at byte ", op_at_, " gets no dtype");
        auto impl = std::make_shared<TensorImpl>();
        impl->meta.dtype = a[0]->dtype;
        impl->meta.sizes = dims(a[1], "size");
        impl->meta.strides = dims(a[2], "stride");
        impl->meta.device = kMeta;
        impl->meta.requires_grad = as_bool(a[3], "requires_grad");
        FE_CHECK(impl->meta.sizes.size() == impl->meta.strides.size(), FormatError, w_, ": meta tensor at byte ",
                 op_at_, " has ", impl->meta.sizes.size(), " sizes but ", impl->meta.strides.size(), " strides");
        V t = make(Kind::Tensor);
        t->tensor = Tensor(std::move(impl));
        return t;
      }
      case Callable::DTypeRef:
      case Callable::UntypedStorage: break;
    }
    throw FormatError(detail::cat(w_, ": ", refuse(detail::cat("a call of ", quote(fn->s), " at byte ", op_at_))));
  }

  static std::string stride_text(const TensorMeta& m) {
    std::string s = "[";
    for (size_t k = 0; k < m.strides.size(); ++k) s += (k ? ", " : "") + std::to_string(m.strides[k].hint());
    return s + "]";
  }

  /// BUILD as torch.save emits it: an OrderedDict's attributes (a state_dict's `_metadata`), which
  /// are ignored. Anything else would set arbitrary attributes: refused.
  void build(const V& obj, const V& state) {
    if (obj->kind == Kind::Dict && (state->kind == Kind::Dict || state->kind == Kind::None)) return;
    if (obj->kind == Kind::Tensor && state->kind == Kind::Dict && state->dict.empty()) return;
    throw FormatError(detail::cat(w_, ": ", refuse(detail::cat("BUILD of a ", kind_name(obj->kind), " from a ",
                                                               kind_name(state->kind), " at byte ", op_at_))));
  }

  std::span<const std::byte> d_;
  size_t pos_ = 0, op_at_ = 0;
  const TorchSaveRecords& records_;
  std::string root_, w_;
  std::vector<V> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, V> memo_;
  std::vector<V> memoized_;  ///< every value ever memoized (slots can be overwritten)
  std::map<std::string, V> storages_;
};

/// Memo references make the object a DAG (or a cycle): depth and the number of visits are bounded
/// so that a few hundred bytes cannot ask for 2^64 names.
void flatten(const V& v, const std::string& name, int depth, const std::string& w, std::vector<TorchSaveTensor>& out,
             size_t& visits) {
  FE_CHECK(depth <= 64, FormatError, w, ": the saved object nests deeper than 64 levels (at ", quote(name), ")");
  FE_CHECK(++visits <= 1'000'000, FormatError, w, ": the saved object has more than a million values");
  auto child = [&](const std::string& k) { return name.empty() ? k : name + "." + k; };
  switch (v->kind) {
    case Kind::Tensor: out.push_back({name, v->tensor}); return;
    case Kind::Tuple:
    case Kind::List:
      for (size_t k = 0; k < v->items.size(); ++k) flatten(v->items[k], child(std::to_string(k)), depth + 1, w, out, visits);
      return;
    case Kind::Dict:
      for (const auto& [key, val] : v->dict)
        flatten(val, child(key->kind == Kind::Str ? key->s : std::to_string(key->i)), depth + 1, w, out, visits);
      return;
    case Kind::None:
    case Kind::Bool:
    case Kind::Int:
    case Kind::Float:
    case Kind::Str: return;  // not tensors: their positions stay visible in the other names
    case Kind::Global:
    case Kind::Storage: break;
  }
  throw FormatError(detail::cat(w, ": the saved object holds a bare ", kind_name(v->kind), " at ",
                                quote(name), ", not tensors"));
}

}  // namespace

std::vector<TorchSaveTensor> read_torch_save_records(const TorchSaveRecords& records, std::string_view root_in,
                                                     std::string_view what) {
  const std::string root(root_in), w(what);
  FE_CHECK(!root.empty(), FormatError, w, ": the first entry is not in a folder (torch.save puts every record "
                                          "under one root folder)");
  if (auto bo = records(root + "/byteorder")) {
    const std::string_view order(reinterpret_cast<const char*>(bo->data()), bo->size());
    FE_CHECK(order != "big", FormatError, w, ": ", quote(root + "/byteorder"),
             " is 'big': big-endian archives are not supported (only 'little')");
    FE_CHECK(order == "little", FormatError, w, ": ", quote(root + "/byteorder"), " is ", quote(order),
             ", expected 'little'");
  }
  const std::string pkl_name = root + "/data.pkl";
  auto pkl = records(pkl_name);
  FE_CHECK(pkl.has_value(), FormatError, w, ": no ", quote(pkl_name), ": not a torch.save archive");
  Unpickler u(*pkl, records, root, w + ":" + pkl_name);
  V top = u.run();
  std::vector<TorchSaveTensor> out;
  size_t visits = 0;
  flatten(top, "", 0, w + ":" + pkl_name, out, visits);
  std::map<std::string_view, int> seen;
  for (const auto& t : out)
    FE_CHECK(seen[t.name]++ == 0, FormatError, w, ":", pkl_name, ": two tensors are both called ", quote(t.name));
  return out;
}

std::vector<TorchSaveTensor> read_torch_save(const ZipReader& zip) {
  return read_torch_save_records(
      [&](std::string_view name) -> std::optional<std::span<const std::byte>> {
        if (!zip.contains(name)) return std::nullopt;
        return zip.data(name);
      },
      zip.root(), zip.path());
}

std::vector<TorchSaveTensor> read_torch_save(const std::string& path) { return read_torch_save(ZipReader(path)); }

std::vector<TorchSaveTensor> read_torch_save(std::span<const std::byte> zip_bytes, std::string_view what) {
  const MemZip zip(zip_bytes, std::string(what));
  return read_torch_save_records([&](std::string_view name) { return zip.find(name); }, zip.root(), what);
}

}  // namespace fe::serde
