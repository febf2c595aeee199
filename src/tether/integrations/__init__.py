"""Framework integrations, each an optional extra imported only by the application using it.

``tether.integrations.langchain`` (LangChain v1 agent middleware),
``tether.integrations.openai_agents`` (OpenAI Agents SDK tool guardrails) and
``tether.integrations.pydantic_ai`` (a Pydantic AI capability). Importing this package imports
no framework; the core never imports these modules.
"""
