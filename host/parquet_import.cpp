#include "host/parquet_import.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <locale>
#include <memory>
#include <sstream>
#include <vector>

#include "arrow/arrow_import.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"

extern char** environ;

namespace clq {
namespace {

// Reads argv[1] with pyarrow and writes, into directory argv[2], each
// column's Arrow buffers (c<i>_b<j>) and a manifest: "rows N", then per
// column "column LENGTH OFFSET NULL_COUNT FORMAT BUFFERS SIZE..." and the
// name in hex on the next line. Dictionaries are decoded; a type clq
// cannot store is passed as its Arrow format (or "?"), and the importer
// names it. Exit 3: pyarrow is missing.
constexpr const char* kScript = R"PY(
import sys
try:
    import pyarrow as pa
    import pyarrow.parquet as pq
except ImportError as error:
    sys.stderr.write(f"pyarrow is not importable by {sys.executable}: {error}\n")
    sys.exit(3)
FORMATS = {pa.int8(): "c", pa.uint8(): "C", pa.int16(): "s", pa.uint16(): "S",
           pa.int32(): "i", pa.uint32(): "I", pa.int64(): "l", pa.uint64(): "L",
           pa.float16(): "e", pa.float32(): "f", pa.float64(): "g", pa.bool_(): "b",
           pa.string(): "u", pa.large_string(): "U", pa.date32(): "tdD", pa.null(): "n",
           pa.binary(): "z", pa.large_binary(): "Z"}
def format_of(t):
    if t in FORMATS:
        return FORMATS[t]
    if pa.types.is_decimal(t):
        return f"d:{t.precision},{t.scale}"
    if pa.types.is_timestamp(t):
        return "tsu:"
    if pa.types.is_nested(t):
        return "+s"
    return "?"
table = pq.read_table(sys.argv[1])
out = sys.argv[2]
lines = [f"rows {table.num_rows}"]
for i, (field, column) in enumerate(zip(table.schema, table.columns)):
    array = pa.concat_arrays(column.chunks) if column.num_chunks else pa.array([], field.type)
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    buffers = array.buffers()
    sizes = []
    for j, buffer in enumerate(buffers):
        if buffer is None:
            sizes.append("-")
            continue
        with open(f"{out}/c{i}_b{j}", "wb") as f:
            f.write(buffer)
        sizes.append(str(buffer.size))
    fmt = format_of(array.type)
    lines.append(f"column {len(array)} {array.offset} {array.null_count} {fmt} {len(buffers)} "
                 + " ".join(sizes))
    lines.append(field.name.encode().hex() or "-")
with open(f"{out}/manifest", "w") as f:
    f.write("\n".join(lines) + "\n")
)PY";

// A private temporary directory, removed with everything in it.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/clq-parquet-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
      throw FileError("cannot create a temporary directory in " + pattern + ": " +
                      std::strerror(errno));
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `python` on the script; its stderr goes to `log`. Returns the exit
// status, or -1 when the interpreter could not be started.
int RunScript(const std::string& python, const std::string& parquet, const std::string& out,
              const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> args = {python, "-c", kScript, parquet, out};
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A buffer file mapped read-only; unmapped with the last holder.
std::shared_ptr<void> MapFile(const std::string& path, std::size_t size) {
  if (size == 0) return std::shared_ptr<void>(std::malloc(64), std::free);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw FileError("cannot open " + path + ": " + std::strerror(errno));
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) throw FileError("cannot map " + path + ": " + std::strerror(errno));
  return std::shared_ptr<void>(p, [size](void* q) { munmap(q, size); });
}

std::string FromHex(const std::string& hex) {
  if (hex == "-") return {};
  std::string text;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    text += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return text;
}

// The manifest's columns as Arrow C Data structs over the mapped buffers:
// one struct array (a record batch) whose release frees them all.
struct Batch {
  struct Column {
    std::string format;
    std::string name;
    std::vector<std::shared_ptr<void>> mapped;
    std::vector<const void*> buffers;
    ArrowArray array{};
    ArrowSchema schema{};
  };
  std::vector<std::unique_ptr<Column>> columns;
  std::vector<ArrowArray*> arrays;
  std::vector<ArrowSchema*> schemas;
  const void* no_validity[1] = {nullptr};
  ArrowArray array{};
  ArrowSchema schema{};
};

}  // namespace

bool IsParquetFile(const std::string& path) {
  if (path.size() >= 8 && path.compare(path.size() - 8, 8, ".parquet") == 0) return true;
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::memcmp(magic, "PAR1", 4) == 0;
}

TablePtr ReadParquetThroughPyarrow(const std::string& path, const std::string& name,
                                   const std::string& python, std::uint64_t host_memory) {
  if (access(path.c_str(), R_OK) != 0)
    throw FileError("cannot read " + path + ": " + std::strerror(errno));
  const TemporaryDirectory dir;
  const std::string log = dir.path() + "/stderr";
  const int status = RunScript(python, path, dir.path(), log);
  if (status != 0) {
    std::string detail = ReadWhole(log);
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' '))
      detail.pop_back();
    if (const std::size_t last = detail.rfind('\n'); last != std::string::npos)
      detail = detail.substr(last + 1);  // the exception's line, not the traceback
    if (status < 0)
      throw InvalidInputError("reading the Parquet file " + path + " needs Python with pyarrow; " +
                              python + " could not be started (set CLQ_PYTHON to an interpreter)");
    if (status == 3)
      throw InvalidInputError("reading the Parquet file " + path +
                              " needs pyarrow (pip install pyarrow): " + detail);
    throw InvalidInputError("pyarrow could not read the Parquet file " + path + ": " + detail);
  }

  std::istringstream manifest(ReadWhole(dir.path() + "/manifest"));
  manifest.imbue(std::locale::classic());  // the embedding process may have set another
  std::string word;
  std::uint64_t rows = 0;
  if (!(manifest >> word >> rows) || word != "rows")
    throw InternalError("the Parquet reader's manifest is malformed");
  auto batch = std::make_shared<Batch>();
  std::uint64_t bytes = 0;
  while (manifest >> word) {
    CLQ_CHECK(word == "column", "the Parquet reader's manifest is malformed");
    auto column = std::make_unique<Batch::Column>();
    std::int64_t length = 0, offset = 0, null_count = 0;
    std::size_t buffers = 0;
    manifest >> length >> offset >> null_count >> column->format >> buffers;
    for (std::size_t b = 0; b < buffers; ++b) {
      std::string size;
      manifest >> size;
      if (size == "-") {
        column->buffers.push_back(nullptr);
        continue;
      }
      const std::size_t n = std::stoull(size);
      bytes += n;
      column->mapped.push_back(MapFile(
          dir.path() + "/c" + std::to_string(batch->columns.size()) + "_b" + std::to_string(b), n));
      column->buffers.push_back(column->mapped.back().get());
    }
    std::string hex;
    manifest >> hex;
    column->name = FromHex(hex);
    column->array.length = length;
    column->array.offset = offset;
    column->array.null_count = null_count;
    column->array.n_buffers = static_cast<std::int64_t>(buffers);
    column->array.buffers = column->buffers.data();
    column->array.release = [](ArrowArray* a) { a->release = nullptr; };
    column->schema.format = column->format.c_str();
    column->schema.name = column->name.c_str();
    column->schema.release = [](ArrowSchema* s) { s->release = nullptr; };
    batch->columns.push_back(std::move(column));
  }
  CheckHostMemory(host_memory, "the Parquet file " + path, bytes);
  for (auto& c : batch->columns) {
    batch->arrays.push_back(&c->array);
    batch->schemas.push_back(&c->schema);
  }
  batch->array.length = static_cast<std::int64_t>(rows);
  batch->array.n_buffers = 1;
  batch->array.buffers = batch->no_validity;
  batch->array.n_children = static_cast<std::int64_t>(batch->arrays.size());
  batch->array.children = batch->arrays.data();
  // The batch owns the mapped buffers; the importer keeps it as long as a
  // column reads them in place, through this holder.
  batch->array.private_data = new std::shared_ptr<Batch>(batch);
  batch->array.release = [](ArrowArray* a) {
    delete static_cast<std::shared_ptr<Batch>*>(a->private_data);
    a->release = nullptr;
  };
  batch->schema.format = "+s";
  batch->schema.name = "";
  batch->schema.n_children = static_cast<std::int64_t>(batch->schemas.size());
  batch->schema.children = batch->schemas.data();
  batch->schema.release = [](ArrowSchema* s) { s->release = nullptr; };
  ArrowArray array = batch->array;
  ArrowSchema schema = batch->schema;
  batch.reset();  // the array's private data holds it now
  try {
    return ImportArrowArray(name, &schema, &array);
  } catch (const InvalidInputError& error) {
    throw InvalidInputError("the Parquet file " + path + ": " + error.what());
  }
}

}  // namespace clq
