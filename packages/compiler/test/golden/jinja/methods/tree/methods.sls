{%- set d = {'b': 2, 'a': 1} %}
{%- set l = [3, 1, 2] %}
{%- set s = '  Hello, World  ' %}
{%- do d.update({'c': 3}) %}
{%- do d.update(e=5) %}
{%- set popped = d.pop('e') %}
{%- set sd = d.setdefault('z', []) %}
{%- do sd.append(9) %}
{%- do l.append(4) %}
{%- do l.extend([5, 6]) %}
{%- do l.insert(0, 0) %}
{%- set lp = l.pop() %}
{%- do l.remove(0) %}
{%- do l.sort() %}
{%- set l2 = l.copy() %}
{%- do l2.reverse() %}
methods:
  test.nop:
    - dict: {{ [d.get('a'), d.get('x'), d.get('x', 'dflt'), d.keys() | list, d.values() | list, d.items() | list, popped, d.copy(), 'a' in d] | json }}
    - list: {{ [l, l2, lp, l.index(3), l.count(1), l[1:3], l[::2], l[-1]] | json }}
    - str: {{ [s.strip(), s.lstrip(), s.rstrip(), s.strip(' Hd'), 'a,b,,c'.split(','), 'a b  c'.split(), 'a.b.c'.rsplit('.', 1), 'a.b.c'.split('.', 1)] | json }}
    - str2: {{ ['abc'.startswith('a'), 'abc'.endswith(('x', 'c')), 'a-a'.replace('a', 'b'), 'a-a'.replace('a', 'b', 1), 'ab'.upper(), 'AB'.lower(), 'hello world'.title(), 'hELLO'.capitalize(), 'abc'.find('c'), 'abc'.find('z'), 'abc'.index('b'), 'aaa'.count('a'), '7'.zfill(3), '-7'.zfill(4), 'k=v=w'.partition('='), 'k=v=w'.rpartition('=')] | json }}
    - format: {{ ['{} and {}'.format('a', 'b'), '{0}{1}{0}'.format('x', 'y'), '{name}:{port:d}'.format(name='h', port=80), '{:>5}|{:<5}|{:^5}'.format('r', 'l', 'c'), '{:.2f}'.format(3.14159), '{:03d}'.format(7), '%s is %d years' % ('x', 3), '%5.1f%%' % 12.345, '%-5s|' % 'ab', '%(a)s-%(b)s' % {'a': 1, 'b': 2}, '-'.join(['a', 'b'])] | json }}
    - misc: {{ ['abc'[1], 'abcdef'[1:4], 'abcdef'[::-1], 'abcdef'[-2:], ['x', 'y'] * 2, 'ab' * 3, [1] + [2], 10 // 3, 10 % 3, 2 ** 10, 7 / 2] | json }}
