{%- set users = [{'name': 'ann', 'uid': 1002, 'grp': 'adm'}, {'name': 'bob', 'uid': 1001, 'grp': 'dev'}, {'name': 'cy', 'uid': 1003, 'grp': 'adm'}] %}
{%- set d = {'b': 2, 'a': 1, 'C': 3} %}
filters:
  test.nop:
    - default: {{ [nothing | default('x'), '' | default('y', true), none | default('z'), false | d('w', boolean=True)] }}
    - json_args: {{ d | json(sort_keys=False) | json }}
    - json_indent: {{ {'a': [1]} | json(indent=2) | json }}
    - tojson: {{ {'b': '<&>', 'a': "'"} | tojson | json }}
    - yaml_args: {{ [d | yaml(False), d | yaml(True), [1, [2]] | yaml(None)] | json }}
    - indent: {{ ['a\nb\n\nc' | indent(2), 'a\nb' | indent(4, True), 'a\n\nb' | indent(width=1, first=true, blank=true)] | json }}
    - dictsort: {{ [d | dictsort, d | dictsort(true), d | dictsort(false, 'value'), d | dictsort(reverse=true)] }}
    - sort: {{ [['b', 'A', 'c'] | sort, ['b', 'A', 'c'] | sort(case_sensitive=true), users | sort(attribute='uid') | map(attribute='name') | list, [3, 1, 2] | sort(reverse=true)] }}
    - map: {{ [users | map(attribute='name') | list, ['a', 'b'] | map('upper') | list, users | map(attribute='missing', default='-') | list] }}
    - selectattr: {{ users | selectattr('grp', 'equalto', 'adm') | map(attribute='name') | list }}
    - rejectattr: {{ users | rejectattr('uid', 'gt', 1001) | map(attribute='name') | list }}
    - groupby: {{ users | groupby('grp') | map('list') | list | json }}
    - groupby_names: "{% for g in users | groupby('grp') %}{{ g.grouper }}={{ g.list | map(attribute='name') | join(',') }};{% endfor %}"
    - sum_min_max: {{ [[1, 2, 3] | sum, users | sum(attribute='uid'), [3, 1] | min, ['b', 'A'] | max] }}
    - unique: {{ ['a', 'A', 'b', 'a'] | unique | list }}
    - batch_slice: {{ [[1, 2, 3, 4, 5] | batch(2) | list, [1, 2, 3, 4, 5] | batch(2, 0) | list, [1, 2, 3, 4, 5] | slice(2) | list] }}
    - strings: {{ ['hello world' | title, 'HELLO' | capitalize, 'abc' | center(7), 'a b c' | wordcount, 'abcdefghij' | truncate(7, true, '..', 0), ' x ' | trim, 'xax' | trim('x'), 'a-b-c' | replace('-', '+', 1), 'ab' | reverse, 'abc' | first, 'abc' | last, 'abc' | length] }}
    - format: {{ ['%s=%d' | format('a', 3), '%(k)s' | format(k='v'), '{0}-{1}' | format('x') if false else 'n/a'] }}
    - numbers: {{ ['12' | int, 'x' | int(5), '0x1F' | int(0, 16), '3.7' | float, 2.55 | round(1), 2.5 | round, 2.4 | round(0, 'ceil'), -3 | abs, '1e3' | float] }}
    - lists: {{ ['ab' | list, {'k': 1} | list, 3 | string, [1, [2, [3]]] | flatten, [1, [2, [3]]] | flatten(levels=1)] }}
    - items: {{ d | items | list }}
    - join: {{ [['a', 'b'] | join, ['a', 'b'] | join(', '), users | join('/', attribute='name')] }}
    - salt_regex: {{ ['web-01' | regex_replace('(\\w+)-(\\d+)', '\\2_\\1'), 'abc123' | regex_search('(\\d+)'), 'abc' | regex_match('(b)'), 'ABC' | regex_match('(a)', ignorecase=True), 'a.b' | regex_escape] }}
    - salt_misc: {{ ['yes' | to_bool, 'no' | to_bool, 0 | to_bool, 'x' | sequence, ['a', 'a', 'b'] | unique, 'a b' | quote, 'x' | yaml_dquote, 'it' | yaml_squote, 'abc' | md5, 'abc' | sha256, 'hi' | base64_encode, 'aGk=' | base64_decode] }}
    - salt_sets: {{ [[1, 2, 3] | difference([2]), [1, 2] | intersect([2, 3]), [1, 2] | union([2, 3]), [1, 2] | symmetric_difference([2, 3]), [1, 2] | is_list, 'x' | is_list] }}
    - salt_traverse: {{ [{'a': {'b': [10, 20]}} | traverse('a:b:1'), {'a': 1} | traverse('x', 'dflt'), {'a': {'b': 1}} | traverse('a/b', delimiter='/')] }}
    - salt_ip: {{ ['10.0.0.1' | is_ip, 'x' | is_ip, '::1' | is_ipv6, '10.0.0.1' | is_ipv4, ['10.0.0.1', 'fe80::1', 'no'] | ipv4, ['10.0.0.1', 'fe80::1'] | ipv6, '::1' | ipwrap] }}
    - salt_data: {{ ['x' | is_iter, [1] | is_iter, 'ff' | is_hex, 'a b' | contains_whitespace, [1, 2] | avg, '12' | to_num, '1.5' | to_num, 'x' | to_num, '2K' | human_to_bytes, ['b', 'A'] | sorted_ignorecase, 'ab' | substring_in_list(['xaby']), [1, 0, 1] | exactly_n_true(2), [0, 1] | exactly_one_true] }}
    - salt_dicts: {{ [[1, 2] | compare_lists([2, 3]), {'a': 1, 'b': 2} | compare_dicts({'a': 1, 'b': 3}), {'a': 1} | to_entries, [{'key': 'k', 'value': 'v'}] | from_entries, {} | set_dict_key_value('a:b', 1), {} | append_dict_key_value('a:l', 1), {'a': {}} | update_dict_key_value('a', {'x': 1}), {} | extend_dict_key_value('l', [1, 2])] }}
    - salt_case: {{ ['helloWorld' | to_snake_case, 'hello_world' | to_camelcase, 'hello_world' | to_camelcase(uppercamel=True), 'example' | uuid, 'a' | skip] }}
    - itertools: {{ [[1, 2] | zip(['a', 'b']) | list, [1, 2] | zip_longest(['a']) | list, [1, 2] | product(['a']) | list, [1, 2, 3] | combinations(2) | list, [1, 2] | permutations | list, [1, 2, 3] | compress([1, 0, 1]) | list] | json }}
    - sls_params: {{ {'a': 1, 'b': [2]} | dict_to_sls_yaml_params | json }}
    - jinja_more: {{ [1000 | filesizeformat, 1048576 | filesizeformat(true), 'aaa bbb ccc' | wordwrap(5), {'id': 'x', 'n': none} | xmlattr, {'a': 1} | pprint] | json }}
