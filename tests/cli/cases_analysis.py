# root-debt's blast-radius ranking checked against itself: orderings and sums over the roots, and the reach
# that constraints add (two runs compared), which a text case cannot state.


@case
def root_debt_json(cli):
    j = cli.json("root-debt", "--limit", "1000")
    check(j["mode"] == "blast-radius" and j["shown"] == j["total_roots"] == len(j["rows"]), "every root shown")
    weights = [r["dependents"] for r in j["rows"]]
    check(weights == sorted(weights, reverse=True), "heaviest first")
    check(all(r["boundary_category"] == "primitive-root" and r["primitive_boundary"] for r in j["rows"]), "roots are primitive")
    with_constraints = {r["variable"]: r["dependents"] for r in cli.json("root-debt", "--include-constraints", "--limit", "1000")["rows"]}
    check(all(with_constraints[r["variable"]] >= r["dependents"] for r in j["rows"]), "constraints only add reach")
    f = cli.json("root-debt", "--families", "--limit", "1000")
    check(sum(x["total_weight"] for x in f["families"]) == sum(weights), "family weights add up")
    check(sum(x["root_count"] for x in f["families"]) == j["total_roots"], "every root in one family")
    check(all(len(x["top_roots"]) <= 4 for x in f["families"]), "at most four heaviest roots per family")
