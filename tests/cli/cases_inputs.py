# Every input file a user names is read through one bounded reader (image/text_file): a device, FIFO or
# directory is refused with exit 2 at once. `--preset /dev/zero` and `simulate /dev/zero` used to read
# until memory ran out (killed, exit 137).


@case
def special_files_are_refused_by_every_reader(cli):
    for args in (("resolve", "econ.cost.per_token", "--preset", "/dev/zero"),
                 ("plan", "--preset", "h100_16k", "--knobs", "/dev/zero"),
                 ("resolve", "econ.cost.per_token", "--preset", "/tmp")):
        _, err = cli.run(*args, image="model", expect=2)
        contains(err, "it is not a regular file")
    _, err = cli.run("simulate", "/dev/zero", image=None, expect=2)
    contains(err, "cannot read scenario '/dev/zero': it is not a regular file")
