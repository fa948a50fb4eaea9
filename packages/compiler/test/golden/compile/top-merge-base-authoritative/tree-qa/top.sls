qa:
  '*':
    - qa_own
