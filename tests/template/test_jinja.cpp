// Units of the Jinja interpreter: whitespace control, statements, expressions, filters, tests, methods, globals,
// undefined semantics, and errors (with the template line and column) and render limits. Expected outputs are what
// Jinja2 3.1 (configured like HF transformers) prints for the same template.
#include <QtTest>

#include <atomic>
#include <string>
#include <thread>

#include "ft/error.h"
#include "ft_test.h"
#include "tokenizer/chat_template.h"

class TestJinja : public QObject {
    Q_OBJECT

private slots:
    void renders_data();
    void renders();
    void errors_data();
    void errors();
    void limits();
    void fixed_time_parsing();
    void value_printing();
    void template_is_reusable_and_thread_safe();
};

using ojson = nlohmann::ordered_json;

namespace {

std::string render(const std::string& src, const char* ctx = "{}", ft::jinja::RenderOptions opts = {}) {
    ft::jinja::Template t(src, "t");
    if (!opts.now) opts.now = ft::jinja::parse_fixed_time("2026-01-15 12:00:00");
    return ft::chat::render_json_context(t, ojson::parse(ctx), opts);
}

// Renders and returns the error message; empty when rendering succeeded.
std::string error_of(const std::string& src, const char* ctx = "{}", ft::jinja::RenderOptions opts = {},
                     ft::ErrorCode* code = nullptr) {
    try {
        render(src, ctx, opts);
    } catch (const ft::Error& e) {
        if (code) *code = e.code();
        return e.what();
    }
    return {};
}

}  // namespace

void TestJinja::renders_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("expected");
    auto row = [](const char* name, const char* src, const char* ctx, const char* want) {
        QTest::newRow(name) << QString::fromUtf8(src) << QString::fromUtf8(ctx) << QString::fromUtf8(want);
    };
    // whitespace: trim_blocks + lstrip_blocks as HF sets them, -/+ modifiers, comments, raw
    row("trim_lstrip", "a\n  {% if true %}\n  b\n  {% endif %}\nc", "{}", "a\n  b\nc");
    row("minus", "a  {{- 'b' -}}  \n c", "{}", "abc");
    row("plus_keeps_indent", "  {%+ if true %}x{% endif %}", "{}", "  x");
    row("var_tag_not_trimmed", "{{ 'a' }}\nb", "{}", "a\nb");
    row("comment", "a {# c #} b\n{# c #}\nd", "{}", "a  b\nd");
    row("comment_minus", "a\n  {#- c -#}  \nb", "{}", "ab");
    row("raw", "{% raw %}{{ x }}{% if %}{% endraw %}", "{}", "{{ x }}{% if %}");
    row("trailing_newline_dropped", "x\n", "{}", "x");
    row("only_one_newline_dropped", "x\n\n", "{}", "x\n");
    row("crlf_normalised", "a\r\n{% if true %}\r\nb{% endif %}", "{}", "a\nb");
    // loops
    row("loop_vars", "{% for x in [1,2,3] %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{{ loop.revindex }}{{ loop.length }}|{% endfor %}",
        "{}", "10TrueFalse33|21FalseFalse23|32FalseTrue13|");
    row("prev_next_cycle", "{% for x in 'abc' %}{{ loop.previtem|default('-') }}{{ loop.nextitem|default('-') }}{{ loop.cycle('o','e') }}{% endfor %}",
        "{}", "-boaceb-o");
    row("for_else", "{% for x in [] %}x{% else %}empty{% endfor %}", "{}", "empty");
    row("for_if", "{% for x in range(10) if x is odd %}{{ x }}{% endfor %}", "{}", "13579");
    row("for_if_length", "{% for x in range(10) if x > 6 %}{{ loop.length }}{% endfor %}", "{}", "333");
    row("break_continue", "{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 5 %}{% break %}{% endif %}{{ x }}{% endfor %}",
        "{}", "0134");
    row("unpack", "{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %}", "{}", "a=1;b=2;");
    row("dict_iterates_keys", "{% for k in d %}{{ k }}{% endfor %}", R"({"d": {"z": 1, "a": 2}})", "za");
    row("filter_on_iterable", "{% for m in ms | selectattr('role', 'equalto', 'user') %}{{ m.c }}{% endfor %}",
        R"({"ms": [{"role": "user", "c": 1}, {"role": "x", "c": 2}, {"role": "user", "c": 3}]})", "13");
    row("reverse_slice_loop", "{% for x in xs[::-1] %}{{ x }}{% endfor %}", R"({"xs": [1, 2, 3]})", "321");
    // set / namespace / scoping
    row("namespace", "{% set ns = namespace(n=0) %}{% for x in [1,2,3] %}{% set ns.n = ns.n + x %}{% endfor %}{{ ns.n }}", "{}", "6");
    row("loop_scope", "{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}", "{}", "1");
    row("if_no_scope", "{% if true %}{% set x = 2 %}{% endif %}{{ x }}", "{}", "2");
    row("block_set", "{% set x %}a{{ 1 + 1 }}{% endset %}[{{ x }}]", "{}", "[a2]");
    row("block_set_filter", "{% set x | upper %}ab{% endset %}{{ x }}", "{}", "AB");
    row("tuple_set", "{% set a, b = [1, 2] %}{{ b }}{{ a }}", "{}", "21");
    // macros, call, filter blocks
    row("macro_defaults", "{% macro m(a, b='B') %}{{ a }}{{ b }}{% endmacro %}{{ m(1) }}{{ m(1, b=2) }}", "{}", "1B12");
    row("macro_missing_arg_undefined", "{% macro m(a) %}[{{ a }}]{% endmacro %}{{ m() }}", "{}", "[]");
    row("macro_sees_context", "{% macro m() %}{{ bos }}{% endmacro %}{{ m() }}", R"({"bos": "<s>"})", "<s>");
    row("call_caller", "{% macro w() %}<{{ caller() }}>{% endmacro %}{% call w() %}in{% endcall %}", "{}", "<in>");
    row("call_caller_args", "{% macro w() %}{{ caller(5) }}{% endmacro %}{% call(n) w() %}n={{ n }}{% endcall %}", "{}", "n=5");
    row("filter_block", "{% filter upper %}abc{% endfilter %}", "{}", "ABC");
    row("generation_block", "{% generation %}x{% endgeneration %}", "{}", "x");
    // expressions
    row("arith", "{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 7 / 2 }} {{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ 'a' ~ 1 ~ none }}",
        "{}", "3 -4 1 2 1024 3.5 7 9 a1None");
    row("string_ops", "{{ 'ab' * 2 }} {{ [1] + [2] }} {{ 'a' + 'b' }} {{ '%s-%d' % ('x', 3) }}", "{}", "abab [1, 2] ab x-3");
    row("compare_logic", "{{ 1 < 2 < 3 }} {{ 'b' in 'abc' }} {{ 3 not in [1,2] }} {{ not true or 1 }} {{ 0 and 1 }} {{ 1 == 1.0 }}",
        "{}", "True True True 1 0 True");
    row("filter_binds_tighter", "{{ 'n=' ~ xs | length }} {{ -3 | abs }} {{ 'a' ~ 1 * 2 }}", R"({"xs": [1, 2]})", "n=2 3 a2");
    row("ternary", "{{ 'y' if x else 'n' }}[{{ 'y' if x }}]", "{}", "n[]");
    row("slicing", "{{ [1,2,3,4,5][1:4] }} {{ [1,2,3,4,5][::-2] }} {{ 'hello'[1:-1] }} {{ 'héllo'[::2] }} {{ [1,2,3][-1] }} {{ 'héllo'[1] }}",
        "{}", "[2, 3, 4] [5, 3, 1] ell hlo 3 é");
    row("attr_and_item", "{{ d.a }}{{ d['a'] }}{{ d.missing is defined }}{{ l.0 }}{{ l[5] is defined }}", R"({"d": {"a": 1}, "l": [7]})", "11False7False");
    row("none_attr_is_undefined", "[{{ n.x }}]", R"({"n": null})", "[]");
    row("literals", "{{ [1, 'a', none, true, 1.5] }} {{ {'a': 'b'} }} {{ ('x',) }} {{ 'a' 'b' }} {{ 'a\\tb\\u00e9' }}", "{}",
        "[1, 'a', None, True, 1.5] {'a': 'b'} ['x'] ab a\tbé");
    row("floats", "{{ 1e20 }} {{ 0.1 + 0.2 }} {{ 1/3 }} {{ 10 / 2 }} {{ 1e-5 }} {{ 123456789.0 * 10 }}", "{}",
        "1e+20 0.30000000000000004 0.3333333333333333 5.0 1e-05 1234567890.0");
    row("undefined", "[{{ x }}][{{ x | length }}][{% for a in x %}no{% endfor %}][{{ x is defined }}][{{ x | default('d') }}][{{ x ~ 'a' }}]",
        "{}", "[][0][][False][d][a]");
    // filters
    row("tojson", "{{ {'a': [1, 'é', none, true, 1.5], 'b': {}, 'c': []} | tojson }}", "{}",
        R"({"a": [1, "é", null, true, 1.5], "b": {}, "c": []})");
    row("tojson_order_kept", "{{ d | tojson }}|{{ d | tojson(sort_keys=true) }}", R"({"d": {"z": 1, "a": {"y": 2, "b": 3}}})",
        R"({"z": 1, "a": {"y": 2, "b": 3}}|{"a": {"b": 3, "y": 2}, "z": 1})");
    row("tojson_indent", "{{ {'a': [1], 'b': {}} | tojson(indent=2) }}", "{}", "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}");
    row("tojson_escapes", "{{ s | tojson }}|{{ s | tojson(ensure_ascii=true) }}", R"({"s": "é\n\"\\\u0001😀"})",
        "\"é\\n\\\"\\\\\\u0001😀\"|\"\\u00e9\\n\\\"\\\\\\u0001\\ud83d\\ude00\"");
    row("tojson_separators", "{{ {'a': [1, 2]} | tojson(separators=(',', ':')) }}", "{}", R"({"a":[1,2]})");
    row("string_filters", "{{ '  a b  ' | trim }}|{{ 'ab' | upper }}|{{ 'hello wORLD' | title }}|{{ 'hELLO' | capitalize }}|{{ 'aaa' | replace('a', 'b', 2) }}|{{ 'xay' | trim('xy') }}",
        "{}", "a b|AB|Hello World|Hello|bba|a");
    row("seq_filters", "{{ [3,1,2] | sort | join(',') }} {{ ['b','A','c'] | sort | join }} {{ [1,2,3] | select('odd') | list }} {{ [1,2,3] | reject('odd') | list }} {{ 'héllo' | length }} {{ [1,2] | first }}{{ [1,2] | last }}",
        "{}", "1,2,3 Abc [1, 3] [2] 5 12");
    row("attr_filters", "{{ us | selectattr('admin') | map(attribute='name') | join(',') }} {{ us | rejectattr('admin') | map(attribute='name') | first }} {{ us | map(attribute='x', default='-') | join }} {{ us | sort(attribute='name', reverse=true) | map(attribute='name') | join }}",
        R"({"us": [{"name": "a", "admin": true}, {"name": "b", "admin": false}]})", "a b -- ba");
    row("misc_filters", "{{ x | default('d') }}{{ '' | default('e', true) }}{{ [1,1,2] | unique | list }}{{ 'abc' | reverse }}{{ '42' | int + 1 }}{{ '2.5' | float }}{{ 2.5 | round }}{{ 3.14159 | round(2) }}{{ 'x' | int }}",
        "{}", "de[1, 2]cba432.52.03.140");
    row("indent", "[{{ 'a\nb\n\nc' | indent(2) }}][{{ 'a\nb' | indent(2, true) }}]", "{}", "[a\n  b\n\n  c][  a\n  b]");
    row("items_dictsort", "{% for k, v in d | items %}{{ k }}{{ v }}{% endfor %} {% for k, v in d | dictsort %}{{ k }}{% endfor %}",
        R"({"d": {"b": 1, "a": 2}})", "b1a2 ab");
    row("map_filter_name", "{{ ['a', 'b'] | map('upper') | join }} {{ [1, 2, 3] | sum }} {{ [3, 1] | max }}{{ [3, 1] | min }}", "{}", "AB 6 31");
    // tests
    row("tests", "{{ 1 is number }}{{ true is number }}{{ 1 is integer }}{{ true is integer }}{{ 1.0 is float }}{{ 'a' is string }}{{ {} is mapping }}{{ [] is iterable }}{{ x is undefined }}{{ none is none }}{{ 4 is divisibleby 2 }}{{ 3 is even }}{{ 'a' is eq 'a' }}{{ 5 is gt 3 }}{{ 'ab' is lower }}{{ x is not defined }}{{ true is true }}{{ 1 is true }}",
        "{}", "TrueTrueTrueFalseTrueTrueTrueTrueTrueTrueTrueFalseTrueTrueTrueTrueTrueFalse");
    // methods
    row("str_methods", "{{ 'a,b,,c'.split(',') }} {{ ' a  b '.split() }} {{ 'abc'.startswith(('x','a')) }} {{ 'xxaxx'.strip('x') }} {{ 'Hello'.lower() }} {{ 'a-b'.replace('-', '+') }} {{ 'abc'.find('c') }} {{ 'a b c'.split(' ', 1) }} {{ 'x<think>y</think>z'.split('</think>')[-1] }}",
        "{}", "['a', 'b', '', 'c'] ['a', 'b'] True a hello a+b 2 ['a', 'b c'] z");
    row("strip_chars", "[{{ '\n\n  a\n'.lstrip('\n') }}][{{ 'a  \n\n'.rstrip('\n') }}]", "{}", "[  a\n][a  ]");
    row("dict_methods", "{{ d.get('a') }}{{ d.get('z', 'no') }}{{ d.get('z') }}{{ d.keys() | list }}{{ d.values() | list }}", R"({"d": {"a": 1, "b": 2}})",
        "1noNone['a', 'b'][1, 2]");
    row("format_method", "{{ '{}-{name}'.format(1, name='n') }}", "{}", "1-n");
    // globals
    row("range", "{{ range(3) | list }}{{ range(1, 7, 2) | list }}{{ range(3, 0, -1) | list }}", "{}", "[0, 1, 2][1, 3, 5][3, 2, 1]");
    row("strftime_now", "{{ strftime_now('%Y-%m-%d %H:%M %A %B %d %b') }}", "{}", "2026-01-15 12:00 Thursday January 15 Jan");
    row("dict_global", "{{ dict(a=1, b='x') | tojson }}", "{}", R"({"a": 1, "b": "x"})");
    row("unknown_filter_in_dead_if", "{% if false %}{{ 1 | from_json }}{% endif %}ok", "{}", "ok");
}

void TestJinja::renders() {
    QFETCH(QString, source);
    QFETCH(QString, context);
    QFETCH(QString, expected);
    std::string out;
    try {
        out = render(source.toStdString(), context.toUtf8().constData());
    } catch (const ft::Error& e) {
        QFAIL(e.what());
    }
    QCOMPARE(QString::fromStdString(out), expected);
}

void TestJinja::errors_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QStringList>("needles");
    auto row = [](const char* name, std::string src, const char* ctx, QStringList needles) {
        QTest::newRow(name) << QString::fromStdString(src) << QString(ctx) << needles;
    };
    row("undefined_attr", "line one\n{{ x.y.z }}", "{}", {"t: line 2, column 5", "'x' is undefined"});
    row("missing_key_then_attr", "{{ m.tool_calls.function }}", R"({"m": {}})", {"line 1", "'dict object' has no attribute 'tool_calls'"});
    row("unknown_filter", "{{ 1 | nope }}", "{}", {"line 1, column 8", "unknown filter 'nope'"});
    row("unknown_filter_when_reached", "{% if true %}{{ 1 | nope }}{% endif %}", "{}", {"unknown filter 'nope'"});
    row("unknown_test", "{{ 1 is frob }}", "{}", {"unknown test 'frob'"});
    row("include", "a\n{% include 'x' %}", "{}", {"line 2", "'include'", "not supported"});
    row("unknown_tag", "{% frobnicate %}", "{}", {"unknown tag 'frobnicate'"});
    row("stray_end", "{% endfor %}", "{}", {"unexpected '{% endfor %}'"});
    row("unclosed_if", "{% if x %}abc", "{}", {"unexpected end of template", "'endif'"});
    row("unclosed_var", "abc {{ x ", "{}", {"line 1, column 5", "unterminated"});
    row("unterminated_string", "{{ 'abc }}", "{}", {"unterminated string"});
    row("bad_char", "{{ a ; b }}", "{}", {"unexpected character ';'"});
    row("raise_exception", "{{ raise_exception('bad ' ~ 1) }}", "{}", {"line 1, column 4", "raised an exception: bad 1"});
    row("type_error", "{{ 'a' + 1 }}", "{}", {"unsupported operand types for +: 'str' and 'int'"});
    row("break_outside_loop", "{% break %}", "{}", {"outside of a for loop"});
    row("append_refused", "{% set l = [] %}{{ l.append(1) }}", "{}", {"'list.append' is not allowed", "immutable sandbox"});
    row("attr_set_non_namespace", "{% set d = {} %}{% set d.x = 1 %}", "{}", {"only namespace() objects"});
    row("iterate_none", "{% for x in none %}{% endfor %}", "{}", {"'NoneType' object is not iterable"});
    row("call_undefined", "{{ nope() }}", "{}", {"'nope' is undefined"});
    row("tojson_undefined", "{{ x | tojson }}", "{}", {"not JSON serializable"});
    row("deep_nesting", "{{ " + std::string(1000, '(') + "1" + std::string(1000, ')') + " }}", "{}", {"nests too deeply"});
    row("division_by_zero", "{{ 1 // 0 }}", "{}", {"division or modulo by zero"});
    row("macro_too_many_args", "{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}", "{}", {"takes 1 arguments, got 2"});
}

void TestJinja::errors() {
    QFETCH(QString, source);
    QFETCH(QString, context);
    QFETCH(QStringList, needles);
    const QString msg = QString::fromStdString(error_of(source.toStdString(), context.toUtf8().constData()));
    QVERIFY2(!msg.isEmpty(), "rendering succeeded but should have failed");
    for (const auto& n : needles) QVERIFY2(msg.contains(n), qPrintable("'" + n + "' not in: " + msg));
}

void TestJinja::limits() {
    ft::jinja::RenderOptions o;
    o.limits.max_loop_iterations = 1000;
    ft::ErrorCode code{};
    QString msg = QString::fromStdString(error_of("{% for i in range(100) %}{% for j in range(100) %}{% endfor %}{% endfor %}", "{}", o, &code));
    QVERIFY2(msg.contains("loop iterations"), qPrintable(msg));
    QVERIFY(code == ft::ErrorCode::out_of_memory);

    msg = QString::fromStdString(error_of("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"));
    QVERIFY2(msg.contains("nested deeper than 200"), qPrintable(msg));

    ft::jinja::RenderOptions small;
    small.limits.max_output_bytes = 10000;
    msg = QString::fromStdString(error_of("{% for i in range(1000) %}{{ 'x' * 100 }}{% endfor %}", "{}", small));
    QVERIFY2(msg.contains("output larger than 10000 bytes"), qPrintable(msg));
    msg = QString::fromStdString(error_of("{{ 'x' * 100000000000 }}", "{}", small));
    QVERIFY2(msg.contains("too large"), qPrintable(msg));
    msg = QString::fromStdString(error_of("{{ range(100000000) | length }}"));
    QVERIFY2(msg.contains("range() longer than"), qPrintable(msg));
    msg = QString::fromStdString(error_of("{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}", "{}", small));
    QVERIFY2(!msg.isEmpty(), "doubling a string 40 times must hit a limit, not allocate 1 TB");

    const std::string deep_json = "{\"x\": " + std::string(2000, '[') + std::string(2000, ']') + "}";
    msg = QString::fromStdString(error_of("{{ x }}", deep_json.c_str()));
    QVERIFY2(msg.contains("nests deeper than 512"), qPrintable(msg));
    msg = QString::fromStdString(error_of("{% set ns = namespace(x=[]) %}{% for i in range(600) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}"));
    QVERIFY2(msg.contains("nests deeper than 512"), qPrintable(msg));
}

void TestJinja::fixed_time_parsing() {
    std::tm tm = ft::jinja::parse_fixed_time("2024-02-29 23:59:58");
    QCOMPARE(tm.tm_wday, 4);  // a Thursday
    QCOMPARE(tm.tm_yday, 59);
    QVERIFY_THROWS_EXCEPTION(ft::Error, ft::jinja::parse_fixed_time("yesterday"));
    QVERIFY_THROWS_EXCEPTION(ft::Error, ft::jinja::parse_fixed_time("2024-13-01 00:00:00"));
}

void TestJinja::value_printing() {
    using ft::jinja::format_float;
    QCOMPARE(QString::fromStdString(format_float(1.0)), QString("1.0"));
    QCOMPARE(QString::fromStdString(format_float(1e16)), QString("1e+16"));
    QCOMPARE(QString::fromStdString(format_float(123456789012345.6)), QString("123456789012345.6"));
    QCOMPARE(QString::fromStdString(format_float(0.0001)), QString("0.0001"));
    QCOMPARE(QString::fromStdString(format_float(-2.5e-7)), QString("-2.5e-07"));
    QCOMPARE(QString::fromStdString(ft::jinja::python_repr_string("it's")), QString("\"it's\""));
    QCOMPARE(QString::fromStdString(ft::jinja::python_repr_string("a\nb'\"")), QString("'a\\nb\\'\"'"));
}

void TestJinja::template_is_reusable_and_thread_safe() {
    ft::jinja::Template t("{% for m in messages %}{{ m.content }}{% endfor %}", "t");
    ft::jinja::Variables v{{"messages", ft::chat::json_to_value(ojson::parse(R"([{"content": "a"}, {"content": "b"}])"))}};
    std::vector<std::thread> threads;
    std::atomic<int> ok{0};
    for (int i = 0; i < 4; ++i)
        threads.emplace_back([&] {
            for (int k = 0; k < 200; ++k)
                if (t.render(v) == "ab") ++ok;
        });
    for (auto& th : threads) th.join();
    QCOMPARE(ok.load(), 800);
}

FT_TEST_MAIN(TestJinja)
#include "test_jinja.moc"
