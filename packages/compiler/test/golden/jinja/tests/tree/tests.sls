{%- set d = {'a': 1} %}
{%- set l = [1, 2] %}
tests:
  test.nop:
    - defined: {{ [d is defined, nothing is defined, nothing is undefined, d is undefined] }}
    - none: {{ [none is none, 0 is none, none is not none] }}
    - number: {{ [1 is number, 1.5 is number, 'x' is number, true is number] }}
    - string: {{ ['x' is string, 1 is string] }}
    - mapping: {{ [d is mapping, l is mapping] }}
    - iterable: {{ [l is iterable, d is iterable, 'x' is iterable, 1 is iterable] }}
    - sequence: {{ [l is sequence, d is sequence, 'x' is sequence, 1 is sequence] }}
    - boolean: {{ [true is boolean, 1 is boolean] }}
    - truefalse: {{ [true is true, 1 is true, false is false, 0 is false] }}
    - integer: {{ [1 is integer, 1.5 is integer, true is integer] }}
    - float: {{ [1.5 is float, 1 is float] }}
    - divisibleby: {{ [10 is divisibleby 5, 10 is divisibleby(3)] }}
    - compare: {{ [1 is eq 1, 1 is ne 2, 1 is lt 2, 2 is gt 1, 2 is ge 2, 1 is le 0, 1 is equalto 1, 2 is greaterthan 1, 1 is lessthan 2] }}
    - ops: {{ [[1, 2, 3] | select('==', 2) | list, [1, 2, 3] | select('>=', 2) | list, [1, 2, 3] | reject('<', 3) | list] }}
    - in: {{ ['a' is in 'cat', 3 is in l, 'a' is in d] }}
    - case: {{ ['abc' is lower, 'ABC' is upper, 'Abc' is lower] }}
    - callable: {{ [d.items is callable, d is callable] }}
    - escaped: {{ ['x' is escaped] }}
    - oddeven: {{ [3 is odd, 3 is even, 4 is even] }}
    - sameas: {{ [none is sameas none, true is sameas true, 1 is sameas true, d is sameas d] }}
    - match: {{ ['web01' is match('web\d+'), 'xweb' is match('web'), 'WEB' is match('web', ignorecase=True)] }}
    - list: {{ [l is list, d is list] }}
    - select: {{ [1, 2, 3, 4, 5, 6] | select('divisibleby', 3) | list }}
    - reject: {{ ['a', none, 'b'] | reject('none') | list }}
    - selectattr: {{ [{'n': 1, 'on': true}, {'n': 2}] | selectattr('on', 'defined') | map(attribute='n') | list }}
