// The front end's passes, one file each, in the order compile.cpp's pipeline runs them (kPasses):
//   parse -> expand_templates -> declare -> check_forms -> resolve_names -> check_units -> lower
//         -> check_definitions -> check_cycles
// The first two work on the syntax tree; `declare` builds the Model (model.h) that the rest check and
// fill in. Each pass after expand_templates has a printer for `gstackc check --dump-after=PASS`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ast.h"
#include "compiler/passes/model.h"

namespace gs::compiler {

// Replaces every template instance with the declarations it expands to, in place, and drops the
// templates. Problems (unknown template or parameter, a missing argument, a string where a name belongs)
// are E-TEMPLATE diagnostics.
void expand_templates(std::vector<AFile>& files, Diagnostics& diags);

// Systems and their namespaces, references, dimensions, prefixes, units, variables and symbols enter
// the model's tables; every relation gets its entry (name, citations), a second one of a name is
// E-DUPLICATE.
void declare(Model& m, Diagnostics& diags);
// Each relation has the form its head needs (E-RELATION-FORM, E-VARIANT-KEY, E-VALIDITY, E-FALLBACK,
// E-LHS-NOT-VARIABLE).
void check_forms(Model& m, Diagnostics& diags);
// Every name in a relation becomes a variable id (E-UNKNOWN-NAME, E-NOT-VISIBLE, E-CONST-LHS), every
// call a function (E-UNKNOWN-FUNCTION, E-ARITY), every quantity's unit a scale (E-UNIT-UNKNOWN).
void resolve_names(Model& m, Diagnostics& diags);
// The unit checker: the dimension of every node, numbers vs conditions, constant folding.
void check_units(Model& m, Diagnostics& diags);
// Writes each checked relation into the image in postfix form, and hands the relations' diagnostics on
// in declaration order.
void lower(Model& m, Diagnostics& diags);
// Fallbacks name another approximation of the same variable; exports name variables; one selected
// definition per variable.
void check_definitions(Model& m, Diagnostics& diags);
// Fallback chains end, and identities form a DAG.
void check_cycles(Model& m, Diagnostics& diags);

// What each pass after expand_templates holds, as text for --dump-after.
std::string print_declared(const Model& m);
std::string print_forms(const Model& m);
std::string print_resolved(const Model& m);
std::string print_typed(const Model& m);
std::string print_lowered(const Model& m);
std::string print_definitions(const Model& m);
std::string print_cycles(const Model& m);

// Shared by the passes.
namespace pass_util {
// Parses a unit written in a declaration or quantity, reporting unknown units with a suggestion.
std::optional<Quantity> check_unit(const AUnit& u, const UnitTable& units, Diagnostics& diags);
void duplicate(Diagnostics& d, const Location& at, const std::string& what, const std::string& name, const Location& first);
std::string join_names(const std::vector<std::string>& names);
// Quoted "head name", as a user wrote it.
std::string quoted_head(Head h, const std::string& name);
const char* head_word(Head h);
// "in instance 'x' at file:line:col", for diagnostics about what a template instance stamped out.
std::string instance_note(const ADecl& decl);
// A name read outside a relation (an export's target): a visible variable or a math constant, or nothing
// after a diagnostic.
std::optional<TExpr> resolve_name(const Model& m, uint32_t system, const AExpr& ref, Diagnostics& diags);
// A relation's expressions as text, names and numbers as resolve_names left them ("#12 cluster.n").
std::string print_texpr(const TExpr& e, const Model& m);
// One line per relation for --dump-after: its head word and name, then ": error" for a relation the passes
// refused, else what `describe` appends (each pass prints what it added), then a newline.
std::string print_relations(const Model& m, const std::function<void(const RelationIR&, std::string&)>& describe);
}  // namespace pass_util

}  // namespace gs::compiler
