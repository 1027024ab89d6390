#include "lsp/model_index.h"

#include <charconv>
#include <filesystem>

namespace gs::lsp {

using compiler::ADecl;
using compiler::AExpr;
using compiler::AFile;

std::shared_ptr<const ParsedFile> ParsedFile::parse(std::string path, std::string text) {
  auto f = std::make_shared<ParsedFile>();
  f->source = compiler::SourceFile::from_text(std::move(path), std::move(text));
  f->ast = compiler::parse_file(f->source, f->parse_diagnostics);
  return f;
}

ModelIndex::ModelIndex(const std::vector<std::shared_ptr<const ParsedFile>>& files) {
  for (const auto& f : files)
    if (f->ast) index_file(*f->ast);
}

void ModelIndex::use(NameKind kind, const std::string& name, const compiler::Location& at, bool declaration) {
  occurrences_.push_back({kind, name, at.file ? at.file->path : "", at.line, at.column, declaration});
}

void ModelIndex::index_expr(const AExpr& e) {
  if (e.k == AExpr::K::Ref) use(NameKind::Variable, e.text, e.begin, false);
  for (const auto& kid : e.kids) index_expr(kid);
}

void ModelIndex::index_file(const AFile& file) {
  const std::string& path = file.source->path;
  auto declare = [&](NameKind kind, const std::string& name, const compiler::Location& at, const ADecl* decl) {
    // The first declaration wins, as the checker reports the later ones as duplicates.
    names_[int(kind)].try_emplace(name, Declaration{kind, name, path, at.line, at.column, decl, &file});
    use(kind, name, at, true);
  };
  declare(NameKind::System, file.system, file.system_at, nullptr);
  for (const auto& u : file.uses) use(NameKind::System, u.name, u.at, false);
  for (const ADecl& d : file.decls) {
    for (const auto& r : d.refs) use(NameKind::Reference, r.name, r.at, false);
    switch (d.k) {
      case ADecl::K::Var:
      case ADecl::K::Const:
        declare(NameKind::Variable, d.name, d.at, &d);
        break;
      case ADecl::K::Ref:
        declare(NameKind::Reference, d.name, d.at, &d);
        break;
      case ADecl::K::Dimension:
      case ADecl::K::Kind:
      case ADecl::K::Unit:
      case ADecl::K::Prefix:
        declare(NameKind::Unit, d.name, d.at, &d);
        if (!d.base_dim.empty() && d.k == ADecl::K::Unit) use(NameKind::Unit, d.base_dim, d.base_at, false);
        break;
      case ADecl::K::Relation: {
        for (const auto* e : {&d.validity, &d.lhs, &d.rhs, &d.cond, &d.initial, &d.count, &d.mean})
          if (*e) index_expr(**e);
        for (const auto& p : d.dist_params) index_expr(p);
        for (const auto* n : {&d.target, &d.indep})
          if (*n) use(NameKind::Variable, (*n)->name, (*n)->at, false);
        // The variable a value relation defines: the bare left side, or the target of a derivative.
        std::string defined;
        if (d.target) defined = d.target->name;
        else if (d.lhs && d.lhs->k == AExpr::K::Ref && d.body != ADecl::Body::Condition) defined = d.lhs->text;
        if (!defined.empty()) definers_[defined].push_back({&d, path});
        break;
      }
    }
  }
}

const Declaration* ModelIndex::find(NameKind kind, const std::string& name) const {
  const auto& m = names_[int(kind)];
  auto it = m.find(name);
  return it == m.end() ? nullptr : &it->second;
}

const Declaration* ModelIndex::find(const std::string& name) const {
  for (NameKind k : {NameKind::Variable, NameKind::Reference, NameKind::System, NameKind::Unit})
    if (const Declaration* d = find(k, name)) return d;
  return nullptr;
}

std::vector<const Declaration*> ModelIndex::variables() const {
  std::vector<const Declaration*> out;
  for (const auto& [name, d] : names_[int(NameKind::Variable)]) out.push_back(&d);
  return out;
}

std::vector<Definer> ModelIndex::definers(const std::string& variable) const {
  auto it = definers_.find(variable);
  return it == definers_.end() ? std::vector<Definer>{} : it->second;
}

namespace {

const char* head_word(compiler::Head h) {
  static const char* words[] = {"eq", "variant", "approx", "constraint", "iterate", "ode", "stochastic"};
  return words[int(h)];
}

std::string shortest(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string where(const std::string& path, unsigned line) {
  return "`" + std::filesystem::path(path).filename().string() + ":" + std::to_string(line) + "`";
}

// Markdown special characters in free text (descriptions, citations) are escaped so they show as written.
std::string text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\`*_[]<>#|").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string assumptions(const ADecl& d) {
  std::string out;
  for (const auto& a : d.assumptions) {
    if (!out.empty()) out += ", ";
    out += a.name;
    if (a.lo) out += "(" + shortest(*a.lo) + ", " + shortest(*a.hi) + ")";
  }
  return out;
}

std::string citation(const ADecl& r) {
  std::string s = text(r.citation);
  if (!r.ref_kind.empty()) s += " (" + r.ref_kind + (r.year ? ", " + std::to_string(r.year) : "") + ")";
  else if (r.year) s += " (" + std::to_string(r.year) + ")";
  if (!r.locator.empty()) s += ", " + text(r.locator);
  if (!r.url.empty()) s += " <" + r.url + ">";
  return s;
}

}  // namespace

std::string hover_markdown(const ModelIndex& index, const Declaration& d) {
  std::string md;
  const ADecl* decl = d.decl;
  switch (d.kind) {
    case NameKind::Variable: {
      const bool constant = decl->k == ADecl::K::Const;
      md = "**`" + d.name + "`** : `" + (decl->unit ? decl->unit->text : "1") + "`";
      md += constant ? " — constant = " + shortest(decl->value) + " " + (decl->unit ? decl->unit->text : "") : " — variable";
      if (!decl->symbol.empty()) md += ", symbol " + text(decl->symbol);
      md += "\n\n" + text(decl->description);
      if (!decl->doc.empty()) md += "\n\n" + text(decl->doc);
      if (!constant) {
        const auto defs = index.definers(d.name);
        if (defs.empty()) {
          md += "\n\n**Root input**: no relation defines it; a scenario must give its value.";
        } else {
          md += "\n\n**Defined by**:";
          for (const auto& def : defs) {
            md += "\n- `" + std::string(head_word(def.relation->head)) + " " + def.relation->name;
            if (def.relation->variant_key) md += " [" + def.relation->variant_key->name + "]";
            md += "` (" + where(def.path, def.relation->at.line) + ")";
          }
        }
      }
      if (const std::string a = assumptions(*decl); !a.empty()) md += "\n\n**Assumes**: " + a;
      break;
    }
    case NameKind::Reference:
      md = "**ref `" + d.name + "`**\n\n" + citation(*decl);
      break;
    case NameKind::System:
      md = "**system `" + d.name + "`**\n\n" + text(d.file->system_description);
      if (!d.file->system_doc.empty()) md += "\n\n" + text(d.file->system_doc);
      break;
    case NameKind::Unit: {
      const char* what = decl->k == ADecl::K::Dimension ? "dimension" : decl->k == ADecl::K::Kind ? "kind" : decl->k == ADecl::K::Prefix ? "prefix" : "unit";
      md = std::string("**") + what + " `" + d.name + "`**";
      if (decl->k == ADecl::K::Prefix) md += " = " + shortest(decl->scale);
      else if (decl->k == ADecl::K::Kind) md += " of `" + decl->unit->text + "`";
      else if (!decl->base_dim.empty()) md += " : base unit of `" + decl->base_dim + "`";
      else if (decl->k == ADecl::K::Unit)
        md += " = " + (decl->scale != 1 || !decl->unit ? shortest(decl->scale) + " " : "") + (decl->unit ? "`" + decl->unit->text + "`" : "");
      if (!decl->description.empty()) md += "\n\n" + text(decl->description);
      break;
    }
  }
  if (decl && !decl->refs.empty()) {
    md += "\n\n**Sources**:";
    for (const auto& r : decl->refs) {
      md += "\n- `" + r.name + "`";
      if (const Declaration* ref = index.find(NameKind::Reference, r.name)) md += ": " + citation(*ref->decl);
    }
  }
  md += "\n\nDeclared at " + where(d.path, d.line);
  if (d.file && d.kind != NameKind::System) md += " (system `" + d.file->system + "`)";
  return md;
}

}  // namespace gs::lsp
