"""Shared by the gen_unicode_*.py generators: writes a C++ constexpr table, rows wrapped at 112 columns."""


def write_table(out, name, typ, rows, fmt):
    out.write('static constexpr %s %s[] = {\n' % (typ, name))
    line = ''
    for r in rows:
        item = fmt % tuple(r)
        if len(line) + len(item) > 112:
            out.write(line.rstrip() + '\n')
            line = ''
        line += item + ' '
    if line:
        out.write(line.rstrip() + '\n')
    out.write('};\n')
